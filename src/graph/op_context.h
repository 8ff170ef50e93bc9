// What an op's lowering function gets: its arguments, the buffers behind its
// tensors, and the means to record dispatches, uniforms, scratch and resize
// hooks. Lowering runs once per loaded graph, at the maximum shapes.
//
// The usual shape of a lowering:
//   auto u = ctx.uniform(sizeof(Params));
//   auto d = ctx.dispatch(ctx.pipeline("family/x.wgsl", "main"), {ctx.tensor(in), ctx.tensor(out), ctx.uniform_binding(u)});
//   ctx.on_resize({in}, [=](ResizeContext& r) { r.set_dims(out, ...); r.write_uniform(u, ...); r.set_workgroups(d, ...); });
// on_resize runs the hook at once, so the same code sets the parameters at
// build and after every shape change.
#pragma once

#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpu/shader_program.h"
#include "graph/memory_plan.h"
#include "graph/op_registry.h"
#include "graph/resize_context.h"
#include "graph/scratch_pool.h"

namespace wgrt {

class OpContext : public ResizeContext {
 public:
  OpContext(gpu::Device& device, GraphState& state, const MemoryPlan& memory, ScratchPool& scratch, size_t op_index);

  const OpCall& call() const { return state_.graph.ops[op_index_]; }
  const OpArgs& args() const { return args_; }
  // The value id of argument i.
  ValueId arg(size_t i) const { return args_.id(i); }
  const Tensor& tensor_info(ValueId id) const { return state_.graph.tensor(id); }
  const Graph& graph() const { return state_.graph; }
  gpu::Device& device() { return device_; }
  // The load's tuning switches (wgrt/tuning.h).
  const Tuning& tuning() const { return state_.tuning; }

  // The pipeline of an embedded shader and the shaders it imports
  // (gpu/shader_program.h); `slots` fill the {slots} of its imports. The
  // device's own choices fill the rest: {reduce} (gpu::Device::reduce_slot,
  // common/reduce_*.wgsl).
  const gpu::ComputePipeline& pipeline(std::string_view shader_path, std::string_view entry,
                                       const gpu::OverrideConstants& constants = {},
                                       std::initializer_list<gpu::ShaderSlot> slots = {});
  // The buffer of a tensor. A constant stored in several buffers (above the
  // device's binding limit, memory_plan.h) has none: Error(NotSupported)
  // naming the op and argument, unless the op reads it through segments().
  gpu::BufferBinding tensor(ValueId id) const;
  // A tensor's buffers by ranges of `dim` (runs of rows for constants): one
  // segment for a tensor in one buffer. Ops that can read a weight or a KV
  // cache in several bindings record one dispatch per segment.
  std::vector<TensorSegment> segments(ValueId id, size_t dim = 0) const {
    return memory_.segments(id, tensor_info(id), dim);
  }
  // Whether two tensors live in one buffer (a view planned in place).
  bool same_buffer(ValueId a, ValueId b) const {
    return memory_.has_buffer(a) && memory_.has_buffer(b) && &memory_.buffer(a) == &memory_.buffer(b);
  }
  UniformId uniform(size_t bytes);
  gpu::BufferBinding uniform_binding(UniformId u) const;
  // Scratch for this op only: returned to the pool when the lowering ends.
  gpu::BufferBinding scratch(uint64_t bytes, std::string_view label);
  // Scratch that lives as long as the graph (state kept between runs).
  gpu::BufferBinding graph_scratch(uint64_t bytes, std::string_view label);

  // Records a dispatch in op order; its workgroup count is set by a hook.
  DispatchId dispatch(const gpu::ComputePipeline& pipeline, std::span<const gpu::BufferBinding> bindings,
                      std::string label = {});
  DispatchId dispatch(const gpu::ComputePipeline& pipeline, std::initializer_list<gpu::BufferBinding> bindings,
                      std::string label = {}) {
    return dispatch(pipeline, std::span(bindings.begin(), bindings.size()), std::move(label));
  }
  // Makes hooks that depend on graph input `id` also fire when its bytes
  // change (not only its shape), for ops that read an input's values on the
  // host, such as a position held in a tensor. `required` false: the hook only
  // checks the bytes when the host has them (token ids against a table), so a
  // device tensor may still be bound for that input.
  void watch_input_data(ValueId id, bool required = true);
  // Registers `hook` to run whenever a value in `deps` changed, and runs it now.
  void on_resize(std::vector<ValueId> deps, ResizeHook hook);
  // Registers `hook` to run at the start of every run (and runs it now): for
  // dispatches sized by the op's own state, which callers set between runs.
  void on_every_run(ResizeHook hook);
  // Keeps `state` for the graph's callers, who reach it by the op's name
  // (ExecutableGraph::op_state<T>): how an op with state of its own (the
  // sampler's rows) is configured between runs.
  template <typename T>
  void keep_state(std::shared_ptr<T> state) {
    state_.op_states.emplace_back(op_index_, std::any(std::move(state)));
  }

 private:
  const MemoryPlan& memory_;
  ScratchPool& scratch_;
  size_t op_index_;
  OpArgs args_;
  std::vector<ScratchPool::Guard> scratch_guards_;
};

}  // namespace wgrt
