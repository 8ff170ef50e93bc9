#include "graph/op_context.h"

#include <algorithm>

#include "gpu/device.h"
#include "wgrt/error.h"

namespace wgrt {

OpContext::OpContext(gpu::Device& device, GraphState& state, const MemoryPlan& memory, ScratchPool& scratch,
                     size_t op_index)
    : ResizeContext(device, state),
      memory_(memory),
      scratch_(scratch),
      op_index_(op_index),
      args_(state.graph, state.graph.ops[op_index], op_index) {}

const gpu::ComputePipeline& OpContext::pipeline(std::string_view shader_path, std::string_view entry,
                                                const gpu::OverrideConstants& constants,
                                                std::initializer_list<gpu::ShaderSlot> slots) {
  const gpu::ShaderSlot device_slots[] = {{"reduce", device_.reduce_slot()}};
  return device_.pipelines().get(shader_path, entry, constants, state_.tuning.shader_checks,
                                 std::span<const gpu::ShaderSlot>(slots.begin(), slots.size()), device_slots);
}

gpu::BufferBinding OpContext::tensor(ValueId id) const {
  if (memory_.is_segmented(id)) {
    std::string arg = "a value";
    for (size_t i = 0; i < call().args.size(); ++i) {
      if (call().args[i] == id) {
        arg = "argument " + std::to_string(i);
        break;
      }
    }
    const Tensor& t = tensor_info(id);
    throw Error(ErrorCode::NotSupported,
                "op " + std::to_string(op_index_) + " (" + call().name + "): " + arg + " (" + std::string(storage_name(t.storage)) + " " +
                    dims_string(t.max_dims) + " " + std::string(dtype_name(t.dtype)) + ", " +
                    std::to_string(t.max_device_bytes()) + " bytes) is above the device's binding limit of " +
                    std::to_string(device_.split_bytes()) +
                    " bytes and this op cannot read it in parts (embeddings, linears, matmuls and non-transposed convolutions can)");
  }
  return {&memory_.buffer(id)};
}

UniformId OpContext::uniform(size_t bytes) {
  return state_.uniforms.allocate(device_, bytes);
}

gpu::BufferBinding OpContext::uniform_binding(UniformId u) const { return state_.uniforms.binding(u); }

gpu::BufferBinding OpContext::scratch(uint64_t bytes, std::string_view label) {
  scratch_guards_.push_back(scratch_.acquire(bytes, label));
  return {&scratch_guards_.back().buffer()};
}

gpu::BufferBinding OpContext::graph_scratch(uint64_t bytes, std::string_view label) {
  state_.graph_scratch.push_back(gpu::Buffer::create(device_, bytes, gpu::BufferKind::Storage, label));
  return {&state_.graph_scratch.back()};
}

DispatchId OpContext::dispatch(const gpu::ComputePipeline& pipeline, std::span<const gpu::BufferBinding> bindings,
                               std::string label) {
  RecordedDispatch d;
  d.pipeline = &pipeline;
  d.bind_group = gpu::BindGroup::create(device_, pipeline, bindings);
  d.label = label.empty() ? call().name : std::move(label);
  d.bindings.assign(bindings.begin(), bindings.end());
  for (const gpu::BufferBinding& b : bindings) {
    ValueId input = kNotAnInput;
    for (ValueId in : state_.graph.inputs) {
      if (memory_.has_buffer(in) && &memory_.buffer(in) == b.buffer) input = in;
    }
    d.binding_inputs.push_back(input);
  }
  state_.dispatches.push_back(std::move(d));
  return state_.dispatches.size() - 1;
}

void OpContext::watch_input_data(ValueId id, bool required) {
  const auto& inputs = state_.graph.inputs;
  if (std::find(inputs.begin(), inputs.end(), id) == inputs.end()) {
    throw Error(ErrorCode::InvalidProgram, call().name + ": value " + std::to_string(id) +
                                               " is read on the host but is not a graph input");
  }
  const auto it = std::find(state_.watched_inputs.begin(), state_.watched_inputs.end(), id);
  if (it == state_.watched_inputs.end()) {
    state_.watched_inputs.push_back(id);
    state_.watched_bytes.emplace_back();
    state_.watched_required.push_back(required ? 1 : 0);
  } else if (required) {
    state_.watched_required[size_t(it - state_.watched_inputs.begin())] = 1;
  }
}

void OpContext::on_resize(std::vector<ValueId> deps, ResizeHook hook) {
  hook(*this);
  state_.hooks.push_back({std::move(deps), std::move(hook)});
}

void OpContext::on_every_run(ResizeHook hook) {
  hook(*this);
  state_.hooks.push_back({{}, std::move(hook), true});
}

}  // namespace wgrt
