#include "graph/executable_graph.h"

#include <algorithm>
#include <cstring>

#include "gpu/device.h"
#include "graph/lifetime_planner.h"
#include "graph/op_context.h"
#include "wgrt/error.h"

namespace wgrt {

ExecutableGraph::ExecutableGraph(gpu::Device& device, Graph graph) : device_(device) {
  state_.graph = std::move(graph);
}

std::unique_ptr<ExecutableGraph> ExecutableGraph::load(gpu::Device& device, Graph graph, const LoadOptions& options) {
  const OpRegistry& registry = options.registry ? *options.registry : OpRegistry::builtin();
  registry.check_graph(graph);  // before any allocation
  plan_lifetimes(graph);

  std::unique_ptr<ExecutableGraph> eg(new ExecutableGraph(device, std::move(graph)));
  GraphState& st = eg->state_;
  st.changed.assign(st.graph.values.size(), 0);
  eg->memory_ = MemoryPlan::create(device, st.graph, options.on_upload);
  eg->scratch_ = std::make_unique<ScratchPool>(device, options.scratch_pool);
  for (size_t i = 0; i < st.graph.ops.size(); ++i) {
    OpContext ctx(device, st, eg->memory_, *eg->scratch_, i);
    try {
      registry.find(st.graph.ops[i].name)->lower(ctx);
    } catch (const Error& e) {
      throw e.with_context("lowering op " + std::to_string(i) + " (" + st.graph.ops[i].name + ")");
    }
  }
  std::fill(st.changed.begin(), st.changed.end(), 0);
  for (ValueId out : st.graph.outputs) {
    eg->readback_.push_back(gpu::Buffer::create(device, st.graph.tensor(out).max_device_bytes(),
                                                gpu::BufferKind::Readback, "output " + std::to_string(out)));
  }
  return eg;
}

void ExecutableGraph::check_inputs(std::span<const HostTensorView> inputs) const {
  const Graph& g = state_.graph;
  if (inputs.size() != g.inputs.size()) {
    throw Error(ErrorCode::InvalidArgument, "expected " + std::to_string(g.inputs.size()) + " inputs, got " +
                                                std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const HostTensorView& in = inputs[i];
    const std::string where = "input " + std::to_string(i);
    if (std::holds_alternative<SymInt>(g.values[g.inputs[i]])) {
      if ((in.dtype != DType::I64 && in.dtype != DType::I32) || numel(in.dims) != 1 ||
          in.data.size() != host_size(in.dtype)) {
        throw Error(ErrorCode::InvalidArgument, where + " is a symbolic int: pass one i64 or i32 element");
      }
      continue;
    }
    const Tensor& t = g.tensor(g.inputs[i]);
    if (in.dtype != t.dtype) {
      throw Error(ErrorCode::InvalidArgument, where + ": expected dtype " + std::string(dtype_name(t.dtype)) +
                                                  ", got " + std::string(dtype_name(in.dtype)));
    }
    if (in.dims.size() != t.max_dims.size()) {
      throw Error(ErrorCode::InvalidArgument, where + ": expected rank " + std::to_string(t.max_dims.size()) + " " +
                                                  dims_string(t.max_dims) + ", got rank " +
                                                  std::to_string(in.dims.size()) + " " + dims_string(in.dims));
    }
    for (size_t d = 0; d < in.dims.size(); ++d) {
      if (in.dims[d] < 0 || in.dims[d] > t.max_dims[d]) {
        throw Error(ErrorCode::InvalidArgument, where + ": shape " + dims_string(in.dims) + " exceeds the maximum " +
                                                    dims_string(t.max_dims) + " in dim " + std::to_string(d));
      }
    }
    const uint64_t want = uint64_t(numel(in.dims)) * host_size(in.dtype);
    if (in.data.size() != want) {
      throw Error(ErrorCode::InvalidArgument, where + ": shape " + dims_string(in.dims) + " needs " +
                                                  std::to_string(want) + " bytes, got " + std::to_string(in.data.size()));
    }
  }
}

void ExecutableGraph::propagate_resizes() {
  // Hooks are in op order and an op's outputs feed only later ops, so one
  // forward sweep settles every cascade.
  uint64_t fired = 0;
  ResizeContext ctx(device_, state_);
  for (HookEntry& h : state_.hooks) {
    const bool hit = std::any_of(h.deps.begin(), h.deps.end(), [&](ValueId v) { return state_.changed[v] != 0; });
    if (!hit) continue;
    h.fn(ctx);
    ++fired;
  }
  std::fill(state_.changed.begin(), state_.changed.end(), 0);
  hooks_fired_last_ = fired;
  state_.hooks_fired += fired;
}

std::vector<HostTensor> ExecutableGraph::execute(std::span<const HostTensorView> inputs, const ExecuteOptions& options) {
  check_inputs(inputs);
  Graph& g = state_.graph;
  const std::vector<bool>& want = options.read_outputs;
  if (!want.empty() && want.size() != g.outputs.size()) {
    throw Error(ErrorCode::InvalidArgument, "read_outputs has " + std::to_string(want.size()) + " entries for " +
                                                std::to_string(g.outputs.size()) + " outputs");
  }

  // Live shapes and symbolic ints first, then the hooks, then the data.
  std::vector<std::vector<uint8_t>> device_bytes(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ValueId id = g.inputs[i];
    if (auto* s = std::get_if<SymInt>(&g.values[id])) {
      int64_t v = 0;
      if (inputs[i].dtype == DType::I64) {
        std::memcpy(&v, inputs[i].data.data(), 8);
      } else {
        int32_t v32;
        std::memcpy(&v32, inputs[i].data.data(), 4);
        v = v32;
      }
      if (s->value != v) {
        s->value = v;
        state_.changed[id] = 1;
      }
      continue;
    }
    Tensor& t = g.tensor(id);
    if (t.cur_dims != inputs[i].dims) {
      t.cur_dims = inputs[i].dims;
      state_.changed[id] = 1;
    }
    device_bytes[i] = to_device_layout(t.dtype, inputs[i].data, "input " + std::to_string(i));
  }
  state_.host_inputs.assign(g.values.size(), {});
  for (size_t i = 0; i < inputs.size(); ++i) state_.host_inputs[g.inputs[i]] = inputs[i].data;
  for (size_t w = 0; w < state_.watched_inputs.size(); ++w) {
    const ValueId id = state_.watched_inputs[w];
    const auto bytes = state_.host_inputs[id];
    if (!std::equal(bytes.begin(), bytes.end(), state_.watched_bytes[w].begin(), state_.watched_bytes[w].end())) {
      state_.watched_bytes[w].assign(bytes.begin(), bytes.end());
      state_.changed[id] = 1;
    }
  }
  propagate_resizes();
  state_.host_inputs.clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (device_bytes[i].empty()) continue;
    memory_.buffer(g.inputs[i]).write(0, device_bytes[i].data(), device_bytes[i].size());
  }

  gpu::CommandBatch batch(device_, options.time_dispatches);
  for (const RecordedDispatch& d : state_.dispatches) batch.dispatch(*d.pipeline, d.bind_group, d.count, d.label);
  std::vector<uint64_t> live_bytes(g.outputs.size(), 0);
  for (size_t o = 0; o < g.outputs.size(); ++o) {
    const Tensor& t = g.tensor(g.outputs[o]);
    live_bytes[o] = uint64_t(numel(t.cur_dims)) * device_size(t.dtype);
    if ((want.empty() || want[o]) && live_bytes[o] > 0) {
      batch.copy(memory_.buffer(g.outputs[o]), 0, readback_[o], 0, live_bytes[o]);
    }
  }
  batch.wait();
  timings_ = batch.timings();

  std::vector<HostTensor> outputs(g.outputs.size());
  for (size_t o = 0; o < g.outputs.size(); ++o) {
    const Tensor& t = g.tensor(g.outputs[o]);
    outputs[o].dtype = t.dtype;
    outputs[o].dims = t.cur_dims;
    if ((want.empty() || want[o]) && live_bytes[o] > 0) {
      outputs[o].data = to_host_layout(t.dtype, readback_[o].read(0, live_bytes[o]));
    }
  }
  return outputs;
}

MemoryStats ExecutableGraph::memory_stats() const {
  MemoryStats s;
  memory_.add_to(s);
  for (const auto& b : readback_) s.staging_bytes += b.size();
  for (const auto& b : state_.uniforms) s.uniform_bytes += b.size();
  s.scratch_bytes = scratch_->bytes();
  for (const auto& b : state_.graph_scratch) s.scratch_bytes += b.size();
  s.total_bytes = s.tensor_bytes + s.constant_bytes + s.staging_bytes + s.uniform_bytes + s.scratch_bytes;
  s.unaliased_bytes += s.staging_bytes + s.uniform_bytes + s.scratch_bytes;
  return s;
}

}  // namespace wgrt
