#include "graph/executable_graph.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "gpu/device.h"
#include "graph/lifetime_planner.h"
#include "graph/op_context.h"
#include "wgrt/error.h"

namespace wgrt {

ExecutableGraph::ExecutableGraph(gpu::Device& device, Graph graph) : device_(device) {
  state_.graph = std::move(graph);
}

std::unique_ptr<ExecutableGraph> ExecutableGraph::load(gpu::Device& device, Graph graph, const OpRegistry& registry,
                                                       const LoadOptions& options) {
  validate(options.tuning);
  registry.check_graph(graph, &device);  // before any allocation
  // The registry's passes (fusion: registered with the ops they make), on the
  // graph without its exporter's memory plan (lifetime_planner.h says why).
  if (options.tuning.fuse) {
    const ExporterPlan exported = ExporterPlan::take(graph);
    if (registry.run_passes(graph, {device.split_bytes(), device.limits().max_storage_buffers_per_shader_stage})) {
      registry.check_graph(graph, &device);
    } else {
      exported.restore(graph);
    }
  }
  registry.prepare_constants(graph, options.tuning, &device);
  plan_lifetimes(graph, [&](std::string_view op) {
    const OpDef* def = registry.find(op);
    return def != nullptr && def->is_view;
  });

  std::unique_ptr<ExecutableGraph> eg(new ExecutableGraph(device, std::move(graph)));
  eg->submit_every_ = options.tuning.submit_every < 0 ? kSubmitEveryProgram : size_t(options.tuning.submit_every);
  GraphState& st = eg->state_;
  st.tuning = options.tuning;
  st.changed.assign(st.graph.values.size(), 0);
  st.host_inputs.assign(st.graph.values.size(), {});
  eg->memory_ = MemoryPlan::create(device, st.graph, registry.parts_dims(st.graph), options.on_upload,
                                   options.upload_chunk_bytes, options.tuning.upload_threads);
  eg->scratch_ = std::make_unique<ScratchPool>(device, options.tuning.scratch_pool);
  if (options.on_stage) options.on_stage("creating kernels");
  for (size_t i = 0; i < st.graph.ops.size(); ++i) {
    st.op_first_dispatch.push_back(st.dispatches.size());
    OpContext ctx(device, st, eg->memory_, *eg->scratch_, i);
    try {
      registry.find(st.graph.ops[i].name)->lower(ctx);
    } catch (const Error& e) {
      throw e.with_context("lowering op " + std::to_string(i) + " (" + st.graph.ops[i].name + ")");
    }
  }
  std::fill(st.changed.begin(), st.changed.end(), 0);
  st.uniforms.flush();
  for (ValueId out : st.graph.outputs) {
    eg->readback_.push_back(gpu::Buffer::create(device, st.graph.tensor(out).max_device_bytes(),
                                                gpu::BufferKind::Readback, "output " + std::to_string(out)));
  }
  return eg;
}

namespace {

const Dims& dims_of(const InputView& in) {
  return std::visit([](const auto& v) -> const Dims& { return v.dims; }, in);
}
DType dtype_of(const InputView& in) {
  return std::visit([](const auto& v) { return v.dtype; }, in);
}

// Called while an operator's resize hook is refusing the inputs' live shapes
// (the exception in flight): when an input exported at a fixed shape came at
// another, that input is the cause. The error names it, its fixed and given
// shapes and what to do, and carries the operator's message; otherwise the
// exception goes on as it was.
[[noreturn]] void rethrow_naming_fixed_inputs(const Graph& g, std::span<const InputView> inputs) {
  try {
    throw;
  } catch (const Error& e) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!g.is_tensor(g.inputs[i]) || !g.tensor(g.inputs[i]).fixed_shape) continue;
      const Dims& fixed = g.tensor(g.inputs[i]).max_dims;
      const Dims& got = dims_of(inputs[i]);
      if (got == fixed) continue;
      size_t d = 0;  // the first dim that differs (check_inputs made the ranks equal)
      while (d + 1 < got.size() && got[d] == fixed[d]) ++d;
      throw Error(ErrorCode::InvalidArgument,
                  "input " + std::to_string(i) + ": expected the shape " + dims_string(fixed) +
                      " the program was exported with (a fixed shape), got " + dims_string(got) + " (dim " +
                      std::to_string(d) + " is " + std::to_string(got[d]) + ", not " + std::to_string(fixed[d]) +
                      "); its operators cannot run another (" + e.what() + "). Pass an input of shape " +
                      dims_string(fixed) + ", or export the model with a dynamic dimension (torch.export's "
                      "dynamic_shapes) to run other shapes");
    }
    throw;
  }
}

}  // namespace

void ExecutableGraph::check_inputs(std::span<const InputView> inputs) const {
  const Graph& g = state_.graph;
  if (inputs.size() != g.inputs.size()) {
    throw Error(ErrorCode::InvalidArgument, "expected " + std::to_string(g.inputs.size()) + " inputs, got " +
                                                std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto* host = std::get_if<HostTensorView>(&inputs[i]);
    const DType dtype = dtype_of(inputs[i]);
    const Dims& dims = dims_of(inputs[i]);
    const std::string where = "input " + std::to_string(i);
    if (std::holds_alternative<SymInt>(g.values[g.inputs[i]])) {
      if (host == nullptr || (dtype != DType::I64 && dtype != DType::I32) || numel(dims) != 1 ||
          host->data.size() != host_size(dtype)) {
        throw Error(ErrorCode::InvalidArgument, where + " is a symbolic int: pass one i64 or i32 element" +
                                                    (host == nullptr ? " as host data, not a device tensor" : ""));
      }
      continue;
    }
    const Tensor& t = g.tensor(g.inputs[i]);
    if (dtype != t.dtype) {
      throw Error(ErrorCode::InvalidArgument, where + ": expected dtype " + std::string(dtype_name(t.dtype)) +
                                                  ", got " + std::string(dtype_name(dtype)));
    }
    if (dims.size() != t.max_dims.size()) {
      throw Error(ErrorCode::InvalidArgument, where + ": expected rank " + std::to_string(t.max_dims.size()) + " " +
                                                  dims_string(t.max_dims) + ", got rank " +
                                                  std::to_string(dims.size()) + " " + dims_string(dims));
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d] < 0 || dims[d] > t.max_dims[d]) {
        throw Error(ErrorCode::InvalidArgument, where + ": shape " + dims_string(dims) + " exceeds the maximum " +
                                                    dims_string(t.max_dims) + " in dim " + std::to_string(d));
      }
    }
    if (host == nullptr) {
      check_device_input(i, std::get<DeviceTensorView>(inputs[i]), t);
      continue;
    }
    const uint64_t want = uint64_t(numel(dims)) * host_size(dtype);
    if (host->data.size() != want) {
      throw Error(ErrorCode::InvalidArgument, where + ": shape " + dims_string(dims) + " needs " +
                                                  std::to_string(want) + " bytes, got " +
                                                  std::to_string(host->data.size()));
    }
  }
}

void ExecutableGraph::check_device_input(size_t i, const DeviceTensorView& in, const Tensor& t) const {
  const std::string where = "input " + std::to_string(i) + " (device tensor)";
  if (in.buffer == nullptr || !*in.buffer) throw Error(ErrorCode::InvalidArgument, where + ": it has no buffer");
  if (in.buffer->kind() != gpu::BufferKind::Storage) {
    throw Error(ErrorCode::InvalidArgument, where + ": its buffer is not a storage buffer");
  }
  const auto& watched = state_.watched_inputs;
  const auto it = std::find(watched.begin(), watched.end(), state_.graph.inputs[i]);
  if (it != watched.end() && state_.watched_required[size_t(it - watched.begin())]) {
    // Reading it back would be the host round trip a device input avoids.
    throw Error(ErrorCode::NotSupported, where + ": the graph reads this input's values on the host (e.g. a "
                                                 "position); pass it as host data");
  }
  const uint64_t live = uint64_t(numel(in.dims)) * device_size(t.dtype);
  if (in.buffer->size() < live) {
    throw Error(ErrorCode::InvalidArgument, where + ": shape " + dims_string(in.dims) + " needs " +
                                                std::to_string(live) + " bytes on the device, its buffer has " +
                                                std::to_string(in.buffer->size()));
  }
}

// Bind groups for the dispatches that read an input given as a device tensor,
// with the caller's buffer in the input's place; empty groups elsewhere. A
// caller's buffer's live for one call only: the graph's own bind groups are
// never replaced, so a buffer freed after the call is never bound again. Where
// every such buffer is the graph's own (a step fed the tokens its sampler
// wrote), they are kept for the next call with the same buffers.
const std::vector<gpu::BindGroup>& ExecutableGraph::rebind_inputs(std::span<const InputView> inputs) {
  static const std::vector<gpu::BindGroup> kNone;
  call_groups_.clear();
  const Graph& g = state_.graph;
  // Input i's device buffer where it is not the graph's own buffer for it; null otherwise.
  const auto given = [&](size_t i) -> const gpu::Buffer* {
    const auto* dev = std::get_if<DeviceTensorView>(&inputs[i]);
    const bool own = dev != nullptr && memory_.has_buffer(g.inputs[i]) && dev->buffer == &memory_.buffer(g.inputs[i]);
    return dev == nullptr || own ? nullptr : dev->buffer;
  };
  // The common case (host inputs, or the graph's own buffers) allocates nothing.
  bool foreign = false;
  for (size_t i = 0; i < inputs.size(); ++i) foreign |= given(i) != nullptr;
  if (!foreign) return kNone;
  std::vector<const gpu::Buffer*> per_input(inputs.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) per_input[i] = given(i);
  // Kept groups bind only the graph's own buffers, which live as long as it.
  if (!kept_rebinding_.empty() && per_input == kept_rebinding_) return kept_groups_;
  const bool all_own = std::all_of(per_input.begin(), per_input.end(),
                                   [&](const gpu::Buffer* b) { return b == nullptr || owns_buffer(b); });
  std::vector<const gpu::Buffer*> external(g.values.size(), nullptr);
  std::vector<size_t> input_index(g.values.size(), 0);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (per_input[i] == nullptr) continue;
    external[g.inputs[i]] = per_input[i];
    input_index[g.inputs[i]] = i;
  }
  std::vector<gpu::BindGroup> groups(state_.dispatches.size());
  for (size_t di = 0; di < state_.dispatches.size(); ++di) {
    const RecordedDispatch& d = state_.dispatches[di];
    std::vector<gpu::BufferBinding> bindings = d.bindings;
    bool hit = false;
    for (size_t k = 0; k < bindings.size(); ++k) {
      const ValueId v = d.binding_inputs[k];
      if (v == kNotAnInput || external[v] == nullptr) continue;
      const gpu::Buffer& ext = *external[v];
      const uint64_t end = bindings[k].size != 0 ? bindings[k].offset + bindings[k].size : bindings[k].offset + 1;
      if (end > ext.size()) {
        throw Error(ErrorCode::InvalidArgument, "input " + std::to_string(input_index[v]) + " (device tensor): " +
                                                    d.label + " binds it up to byte " + std::to_string(end) +
                                                    ", its buffer has " + std::to_string(ext.size()));
      }
      bindings[k].buffer = &ext;
      hit = true;
    }
    if (!hit) continue;
    try {
      groups[di] = gpu::BindGroup::create(device_, *d.pipeline, bindings);
    } catch (const Error& e) {
      throw e.with_context("binding a device tensor input for " + d.label);
    }
  }
  if (all_own) {
    kept_rebinding_ = std::move(per_input);
    kept_groups_ = std::move(groups);
    return kept_groups_;
  }
  call_groups_ = std::move(groups);
  return call_groups_;
}

bool ExecutableGraph::owns_buffer(const gpu::Buffer* buffer) const {
  for (ValueId v = 0; v < state_.graph.values.size(); ++v) {
    if (memory_.has_buffer(v) && &memory_.buffer(v) == buffer) return true;
  }
  return false;
}

size_t ExecutableGraph::op_index(std::string_view name) const {
  const auto& ops = state_.graph.ops;
  size_t found = ops.size(), count = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].name != name) continue;
    found = i;
    ++count;
  }
  if (count != 1) {
    throw Error(ErrorCode::InvalidArgument, "the graph has " + std::to_string(count) + " ops named " +
                                                std::string(name) + "; one was asked for");
  }
  return found;
}

void ExecutableGraph::propagate_resizes() {
  // Hooks are in op order and an op's outputs feed only later ops, so one
  // forward sweep settles every cascade.
  uint64_t fired = 0;
  ResizeContext ctx(device_, state_);
  for (HookEntry& h : state_.hooks) {
    const bool hit = std::any_of(h.deps.begin(), h.deps.end(), [&](ValueId v) { return state_.changed[v] != 0; });
    if (!hit && !h.every_run) continue;
    h.fn(ctx);
    fired += hit ? 1 : 0;  // counts what shapes set off
  }
  std::fill(state_.changed.begin(), state_.changed.end(), 0);
  state_.uniforms.flush();
  hooks_fired_last_ = fired;
}

std::vector<HostTensor> ExecutableGraph::execute(std::span<const HostTensorView> inputs, const ExecuteOptions& options) {
  std::vector<InputView> views(inputs.begin(), inputs.end());
  std::vector<OutputTensor> outs = run(views, options);
  std::vector<HostTensor> host(outs.size());
  for (size_t o = 0; o < outs.size(); ++o) {
    host[o].dtype = outs[o].dtype;
    host[o].dims = std::move(outs[o].dims);
    host[o].data = std::move(outs[o].data);
  }
  return host;
}

namespace {

bool to_device(const ExecuteOptions& o, size_t out) { return !o.device_outputs.empty() && o.device_outputs[out]; }
bool to_host(const ExecuteOptions& o, size_t out) {
  return o.wait && !to_device(o, out) && (o.read_outputs.empty() || o.read_outputs[out]);
}

}  // namespace

std::vector<OutputTensor> ExecutableGraph::run(std::span<const InputView> inputs, const ExecuteOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto t_start = Clock::now();
  auto ms_since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
  check_inputs(inputs);
  check_output_options(options);
  Graph& g = state_.graph;
  const size_t n_out = g.outputs.size();

  // Everything that can fail on the inputs themselves, before any state changes.
  std::vector<std::vector<uint8_t>> device_bytes(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto* host = std::get_if<HostTensorView>(&inputs[i]);
    if (host == nullptr || std::holds_alternative<SymInt>(g.values[g.inputs[i]])) continue;
    device_bytes[i] = to_device_layout(host->dtype, host->data, "input " + std::to_string(i));
  }
  const std::vector<gpu::BindGroup>& rebound = rebind_inputs(inputs);

  LiveShapes before = set_live_shapes(inputs);
  std::vector<uint64_t> live_bytes(n_out, 0);
  for (size_t o = 0; o < n_out; ++o) {
    const Tensor& t = g.tensor(g.outputs[o]);
    live_bytes[o] = uint64_t(numel(t.cur_dims)) * device_size(t.dtype);
  }
  // Every device output is made here, into locals, before anything runs: a
  // failure part way frees those made and puts the live shapes back, so the
  // graph is as it was and a retry starts over (seed 001).
  std::vector<DeviceMemoryBuffer> fresh(n_out);
  try {
    for (size_t o = 0; o < n_out; ++o) {
      if (to_device(options, o) && live_bytes[o] > 0) {
        fresh[o] = options.allocator->allocate(live_bytes[o], "output " + std::to_string(o));
      }
    }
  } catch (...) {
    fresh.clear();
    restore_live_shapes(std::move(before));
    throw;
  }

  ExecuteTraffic traffic;
  traffic.bound_input_buffers.assign(inputs.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (const auto* dev = std::get_if<DeviceTensorView>(&inputs[i])) traffic.bound_input_buffers[i] = dev->buffer->raw();
    if (device_bytes[i].empty()) continue;
    memory_.buffer(g.inputs[i]).write(0, device_bytes[i].data(), device_bytes[i].size());
    traffic.host_upload_bytes += device_bytes[i].size();
  }

  HostTimes times;
  times.prepare_ms = ms_since(t_start);
  const auto t_encode = Clock::now();
  gpu::CommandBatch batch(device_, options.time_dispatches);
  encode(batch, inputs, rebound, fresh, live_bytes, options, traffic);
  if (options.encode_after) options.encode_after(batch);
  const auto t_submit = Clock::now();
  batch.submit();
  times.submit_ms = ms_since(t_submit);
  last_submission_ = batch.submission();
  times.encode_ms = ms_since(t_encode);
  times.dispatches = batch.dispatch_count();
  const auto t_wait = Clock::now();
  if (options.wait) batch.wait();
  times.wait_ms = ms_since(t_wait);
  timings_ = options.wait ? batch.timings() : std::vector<gpu::DispatchTiming>{};
  const auto t_read = Clock::now();
  std::vector<OutputTensor> outputs = read_outputs(std::move(fresh), live_bytes, options, traffic);
  traffic_ = std::move(traffic);
  call_groups_.clear();  // a caller's buffer is bound for this call only
  times.readback_ms = ms_since(t_read);
  host_times_ = times;
  return outputs;
}

void ExecutableGraph::check_output_options(const ExecuteOptions& options) const {
  const size_t n_out = state_.graph.outputs.size();
  if (!options.read_outputs.empty() && options.read_outputs.size() != n_out) {
    throw Error(ErrorCode::InvalidArgument, "read_outputs has " + std::to_string(options.read_outputs.size()) +
                                                " entries for " + std::to_string(n_out) + " outputs");
  }
  if (!options.device_outputs.empty() && options.device_outputs.size() != n_out) {
    throw Error(ErrorCode::InvalidArgument, "device_outputs has " + std::to_string(options.device_outputs.size()) +
                                                " entries for " + std::to_string(n_out) + " outputs");
  }
  const auto& dev = options.device_outputs;
  if (std::find(dev.begin(), dev.end(), true) != dev.end()) {
    if (options.allocator == nullptr) {
      throw Error(ErrorCode::InvalidArgument, "device outputs were asked for without a device allocator");
    }
    if (options.allocator->device_type() != DeviceType::WebGPU) {
      throw Error(ErrorCode::InvalidArgument, "device outputs of a WebGPU graph need a webgpu allocator, got " +
                                                  std::string(device_type_name(options.allocator->device_type())));
    }
  }
}

ExecutableGraph::LiveShapes ExecutableGraph::set_live_shapes(std::span<const InputView> inputs) {
  Graph& g = state_.graph;
  // What the inputs set, kept to put back if a later step of the call fails.
  LiveShapes before;
  before.dims.resize(inputs.size());
  before.symints.assign(inputs.size(), 0);
  before.watched = state_.watched_bytes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (auto* s = std::get_if<SymInt>(&g.values[g.inputs[i]])) {
      before.symints[i] = s->value;
    } else {
      before.dims[i] = g.tensor(g.inputs[i]).cur_dims;
    }
  }

  // Live shapes and symbolic ints first, then the hooks.
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ValueId id = g.inputs[i];
    if (auto* s = std::get_if<SymInt>(&g.values[id])) {
      const HostTensorView& in = std::get<HostTensorView>(inputs[i]);
      int64_t v = 0;
      if (in.dtype == DType::I64) {
        std::memcpy(&v, in.data.data(), 8);
      } else {
        int32_t v32;
        std::memcpy(&v32, in.data.data(), 4);
        v = v32;
      }
      if (s->value != v) {
        s->value = v;
        state_.changed[id] = 1;
      }
      continue;
    }
    Tensor& t = g.tensor(id);
    if (t.cur_dims != dims_of(inputs[i])) {
      t.cur_dims = dims_of(inputs[i]);
      state_.changed[id] = 1;
    }
  }
  // Sized once at load; only the inputs' entries are set, and only for the hooks.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (const auto* host = std::get_if<HostTensorView>(&inputs[i])) state_.host_inputs[g.inputs[i]] = host->data;
  }
  for (size_t w = 0; w < state_.watched_inputs.size(); ++w) {
    const ValueId id = state_.watched_inputs[w];
    const auto bytes = state_.host_inputs[id];
    if (!std::equal(bytes.begin(), bytes.end(), state_.watched_bytes[w].begin(), state_.watched_bytes[w].end())) {
      state_.watched_bytes[w].assign(bytes.begin(), bytes.end());
      state_.changed[id] = 1;
    }
  }
  // A hook refusing a live shape (e.g. positions past a KV cache) puts every
  // input's shape, symbolic int and watched bytes back and re-runs the hooks:
  // the graph is as it was and a retry starts over. Marks a throwing hook left
  // on values fire again from the restored inputs.
  try {
    propagate_resizes();
  } catch (...) {
    for (ValueId id : g.inputs) state_.host_inputs[id] = {};
    restore_live_shapes(std::move(before));
    rethrow_naming_fixed_inputs(g, inputs);
  }
  for (ValueId id : g.inputs) state_.host_inputs[id] = {};
  return before;
}

void ExecutableGraph::restore_live_shapes(LiveShapes before) {
  Graph& g = state_.graph;
  for (size_t w = 0; w < state_.watched_inputs.size(); ++w) {
    const ValueId id = state_.watched_inputs[w];
    if (state_.watched_bytes[w] != before.watched[w]) state_.changed[id] = 1;
    state_.watched_bytes[w] = std::move(before.watched[w]);
    state_.host_inputs[id] = state_.watched_bytes[w];
  }
  for (size_t i = 0; i < before.dims.size(); ++i) {
    const ValueId id = g.inputs[i];
    if (auto* s = std::get_if<SymInt>(&g.values[id])) {
      if (s->value != before.symints[i]) state_.changed[id] = 1;
      s->value = before.symints[i];
    } else if (g.tensor(id).cur_dims != before.dims[i]) {
      g.tensor(id).cur_dims = before.dims[i];
      state_.changed[id] = 1;
    }
  }
  propagate_resizes();
  for (ValueId id : g.inputs) state_.host_inputs[id] = {};
}

size_t ExecutableGraph::encode_dispatches(gpu::CommandBatch& batch, size_t first,
                                          const std::vector<gpu::BindGroup>& rebound) {
  size_t swaps = 0;
  for (size_t di = first; di < state_.dispatches.size(); ++di) {
    const RecordedDispatch& d = state_.dispatches[di];
    const bool swapped = !rebound.empty() && rebound[di].raw() != nullptr;
    swaps += swapped ? 1 : 0;
    batch.dispatch(*d.pipeline, swapped ? rebound[di] : d.bind_group, d.count, d.label);
    if (submit_every_ > 0 && (di + 1) % submit_every_ == 0) batch.flush();
  }
  return swaps;
}

void ExecutableGraph::run_tail(size_t first_op, const std::function<void(gpu::CommandBatch&)>& encode_after) {
  if (first_op >= state_.op_first_dispatch.size()) {
    throw Error(ErrorCode::InvalidArgument, "run_tail: op " + std::to_string(first_op) + " of a graph of " +
                                                std::to_string(state_.op_first_dispatch.size()) + " ops");
  }
  propagate_resizes();  // nothing changed since the last run: the hooks that run every run
  gpu::CommandBatch batch(device_);
  host_times_ = HostTimes{};
  encode_dispatches(batch, state_.op_first_dispatch[first_op], {});
  if (encode_after) encode_after(batch);
  batch.submit();
  last_submission_ = batch.submission();
  host_times_.dispatches = batch.dispatch_count();
}

void ExecutableGraph::encode(gpu::CommandBatch& batch, std::span<const InputView> inputs,
                             const std::vector<gpu::BindGroup>& rebound, const std::vector<DeviceMemoryBuffer>& fresh,
                             const std::vector<uint64_t>& live_bytes, const ExecuteOptions& options,
                             ExecuteTraffic& traffic) {
  const Graph& g = state_.graph;
  traffic.rebound_dispatches += encode_dispatches(batch, 0, rebound);
  for (size_t o = 0; o < g.outputs.size(); ++o) {
    if (live_bytes[o] == 0) continue;
    const ValueId id = g.outputs[o];
    // An output that is also a device input comes straight from the caller's buffer.
    const gpu::Buffer* from = &memory_.buffer(id);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto* dev = std::get_if<DeviceTensorView>(&inputs[i]);
      if (dev != nullptr && g.inputs[i] == id) from = dev->buffer;
    }
    if (to_device(options, o)) {
      batch.copy(*from, 0, fresh[o].gpu_buffer(), 0, live_bytes[o]);
      traffic.device_output_bytes += live_bytes[o];
    } else if (to_host(options, o)) {
      batch.copy(*from, 0, readback_[o], 0, live_bytes[o]);
    }
  }
}

std::vector<OutputTensor> ExecutableGraph::read_outputs(std::vector<DeviceMemoryBuffer> fresh,
                                                        const std::vector<uint64_t>& live_bytes,
                                                        const ExecuteOptions& options, ExecuteTraffic& traffic) {
  const Graph& g = state_.graph;
  std::vector<OutputTensor> outputs(g.outputs.size());
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Tensor& t = g.tensor(g.outputs[o]);
    outputs[o].dtype = t.dtype;
    outputs[o].dims = t.cur_dims;
    outputs[o].on_device = to_device(options, o);
    if (outputs[o].on_device) {
      outputs[o].memory = std::move(fresh[o]);
    } else if (to_host(options, o) && live_bytes[o] > 0) {
      outputs[o].data = to_host_layout(t.dtype, readback_[o].read(0, live_bytes[o]));
      traffic.readback_bytes += live_bytes[o];
    }
  }
  return outputs;
}

MemoryStats ExecutableGraph::memory_stats() const {
  MemoryStats s;
  memory_.add_to(s);
  for (const auto& b : readback_) s.staging_bytes += b.size();
  s.uniform_bytes = state_.uniforms.allocated_bytes();
  s.scratch_bytes = scratch_->bytes();
  for (const auto& b : state_.graph_scratch) s.scratch_bytes += b.size();
  s.total_bytes = s.tensor_bytes + s.constant_bytes + s.staging_bytes + s.uniform_bytes + s.scratch_bytes;
  s.unaliased_bytes += s.staging_bytes + s.uniform_bytes + s.scratch_bytes;
  return s;
}

}  // namespace wgrt
