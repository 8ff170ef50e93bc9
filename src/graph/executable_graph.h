// A graph loaded onto a device: checked, memory-planned, lowered to
// dispatches once at the maximum shapes, and then run as often as needed at
// any live shapes up to those maximums (seed 004).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "core/host_tensor.h"
#include "gpu/command_batch.h"
#include "gpu/device_memory.h"
#include "graph/graph_state.h"
#include "graph/memory_plan.h"
#include "graph/op_registry.h"
#include "graph/scratch_pool.h"
#include "wgrt/error.h"
#include "wgrt/memory_stats.h"

namespace wgrt {

namespace gpu {
class Device;
}

// Submits per program when Tuning::submit_every is -1 (an LLM sets its own).
inline constexpr size_t kSubmitEveryProgram = 64;

struct LoadOptions {
  const OpRegistry* registry = nullptr;  // null: OpRegistry::builtin()
  // Every tuning switch (wgrt/tuning.h), validated at load. submit_every:
  // the GPU starts on the first part while the CPU encodes the rest.
  // Measured on the H200 with a host wait per token: SmolLM2 decode 156 ->
  // 203 tokens/s at 64. With steps in flight the GPU is busy anyway, and
  // one submit per step was faster (+2.7 % llama1b, +4.5 % SmolLM2): an LLM
  // resolves -1 to 0.
  Tuning tuning;
  // Called as constants are uploaded: (bytes done, bytes total).
  std::function<void(uint64_t, uint64_t)> on_upload;
  // Called as loading enters a stage after the upload ("creating kernels":
  // each op's pipelines and bind groups), so a progress report can time it.
  std::function<void(const char*)> on_stage;
  // Host memory constants stream through on their way to the GPU (the
  // whole model is never held: constant_upload.h).
  uint64_t upload_chunk_bytes = kDefaultUploadChunkBytes;
};

// A tensor already on the GPU, in device layout (I64 as i32): the graph binds
// this buffer itself for one call, without a copy. It must be a storage
// buffer of the graph's device, at least the live shape's bytes, and stay
// alive until the call returns (not after: nothing keeps it bound). The
// graph's own buffer for that input (tensor_buffer) binds nothing new: how a
// token sampled on the GPU into that buffer feeds the next step.
struct DeviceTensorView {
  DType dtype = DType::F32;
  Dims dims;
  const gpu::Buffer* buffer = nullptr;
};

// One input of a call: host bytes or a device tensor.
using InputView = std::variant<HostTensorView, DeviceTensorView>;

// One output of a call. Host outputs fill `data` (host layout); device
// outputs fill `memory` (device layout) with a new buffer that the caller
// owns, or leave it empty when the live shape has no elements.
struct OutputTensor {
  DType dtype = DType::F32;
  Dims dims;
  bool on_device = false;
  std::vector<uint8_t> data;
  DeviceMemoryBuffer memory;
};

struct ExecuteOptions {
  bool time_dispatches = false;  // per-dispatch GPU time, if timestamp-query is on
  // Which outputs to read back; empty means all. Skipped outputs come back
  // with their live shape and no data.
  std::vector<bool> read_outputs;
  // Which outputs to hand over as device memory instead of reading them back;
  // empty means none. Needs `allocator`, which makes each one.
  std::vector<bool> device_outputs;
  DeviceAllocator* allocator = nullptr;
  // Records more work into the same submit, after the graph's dispatches and
  // output copies (e.g. copies of results into a readback ring).
  std::function<void(gpu::CommandBatch&)> encode_after;
  // false: submit and return at once, reading nothing back (outputs come
  // with their live shapes and no data); last_submission() identifies the
  // submit. Steps queued this way run in order on the GPU.
  bool wait = true;
};

// What the last call moved between host and device, for tests and stats.
// Where the host's time went in the last run (wall clock, milliseconds).
struct HostTimes {
  double prepare_ms = 0;   // input checks, resize hooks, uploads
  double encode_ms = 0;    // recording dispatches and copies, submitting
  double wait_ms = 0;      // waiting for the GPU to finish
  double readback_ms = 0;  // mapping outputs and converting them
  size_t dispatches = 0;   // compute dispatches issued (recorded ones sized to zero are skipped)
  double submit_ms = 0;    // of encode_ms: finishing the command buffer and submitting it
};

struct ExecuteTraffic {
  uint64_t host_upload_bytes = 0;    // input bytes written from the host
  uint64_t readback_bytes = 0;       // output bytes read back to the host
  uint64_t device_output_bytes = 0;  // bytes copied into new device outputs
  size_t rebound_dispatches = 0;     // dispatches given a caller's buffer
  std::vector<const void*> bound_input_buffers;  // per input: the caller's buffer, or null
};

class ExecutableGraph {
 public:
  // Checks every op, plans memory (assigning mem_obj_ids if the graph has
  // none), allocates, uploads constants and lowers every op. Throws
  // wgrt::Error; nothing stays allocated on failure.
  // Before that, each op's prepare step puts its constants into the layout
  // its kernels read. options.registry is not used: `registry` is.
  static std::unique_ptr<ExecutableGraph> load(gpu::Device& device, Graph graph, const OpRegistry& registry,
                                               const LoadOptions& options = {});
  // The same with options.registry, or OpRegistry::builtin() when it is null.
  // Defined by ops/ (register_ops.cpp) with the op list, so graph/ links no op.
  static std::unique_ptr<ExecutableGraph> load(gpu::Device& device, Graph graph, const LoadOptions& options = {});

  const Graph& graph() const { return state_.graph; }
  size_t input_count() const { return state_.graph.inputs.size(); }
  size_t output_count() const { return state_.graph.outputs.size(); }

  // Inputs in graph order. A tensor input's dims are its live shape (rank
  // fixed, each dim <= the maximum); a SymInt input is passed as a one-element
  // I64 or I32 tensor. Bad inputs throw Error(InvalidArgument) naming the
  // input and leave the graph as it was.
  std::vector<HostTensor> execute(std::span<const HostTensorView> inputs, const ExecuteOptions& options = {});
  // The same with inputs on the host or the device, and outputs read back or
  // handed over as device memory (options.device_outputs). Device outputs are
  // allocated together before anything runs: if one fails, those made are
  // freed, the graph's live shapes are put back, and the error is thrown.
  std::vector<OutputTensor> run(std::span<const InputView> inputs, const ExecuteOptions& options = {});
  const ExecuteTraffic& last_traffic() const { return traffic_; }
  // Runs the ops from index `first_op` on (op_index()) again, on the live
  // shapes the last run left, reading the graph's own buffers: nothing is
  // uploaded or read back, and an input the last run was given as a device
  // tensor is not bound again. Submits and returns (last_submission()). For
  // a graph's tail once the host has what it waited for (a constrained
  // draw's mask); `encode_after` as ExecuteOptions'.
  void run_tail(size_t first_op, const std::function<void(gpu::CommandBatch&)>& encode_after = {});

  MemoryStats memory_stats() const;
  const std::vector<gpu::DispatchTiming>& last_timings() const { return timings_; }
  const HostTimes& last_host_times() const { return host_times_; }
  // The index of the last run's final submit (for gpu::ReadbackRing).
  uint64_t last_submission() const { return last_submission_; }
  // Whether a run's work goes to the GPU in one submit (Tuning::submit_every
  // resolved to 0): work submitted from an encode_after hook then runs before
  // all of the run's.
  bool submits_once() const { return submit_every_ == 0; }
  size_t dispatch_count() const { return state_.dispatches.size(); }
  // The index of the one op named `name`; Error(InvalidArgument) when the
  // graph has none or several.
  size_t op_index(std::string_view name) const;
  // The state the op named `name` keeps for its callers (OpContext::keep_state),
  // as a T; Error(Internal) when it keeps none or another type.
  template <typename T>
  T& op_state(std::string_view name) {
    const size_t op = op_index(name);
    for (auto& [index, state] : state_.op_states) {
      if (index != op) continue;
      if (auto* typed = std::any_cast<std::shared_ptr<T>>(&state)) return **typed;
    }
    throw Error(ErrorCode::Internal, "op " + std::string(name) + " keeps no state of the type asked for");
  }
  // Resize hooks that ran during the last execute (0 when no shape changed).
  uint64_t hooks_fired_last_execute() const { return hooks_fired_last_; }
  const gpu::Buffer& tensor_buffer(ValueId id) const { return memory_.buffer(id); }
  const ScratchPool& scratch_pool() const { return *scratch_; }

 private:
  ExecutableGraph(gpu::Device& device, Graph graph);
  void check_inputs(std::span<const InputView> inputs) const;
  void check_device_input(size_t i, const DeviceTensorView& in, const Tensor& t) const;
  // Bind groups for the dispatches that read an input given as a device
  // tensor, with its buffer in the input's place; empty groups elsewhere.
  const std::vector<gpu::BindGroup>& rebind_inputs(std::span<const InputView> inputs);
  bool owns_buffer(const gpu::Buffer* buffer) const;
  // Records the dispatches from index `first` on (with `rebound`'s groups
  // where it has one); returns how many took a rebound group.
  size_t encode_dispatches(gpu::CommandBatch& batch, size_t first, const std::vector<gpu::BindGroup>& rebound);
  void propagate_resizes();

  // One call in three steps. The first is all-or-nothing: it sets the
  // inputs' live shapes and symbolic ints and runs the resize hooks, and
  // returns what they were, which restore_live_shapes puts back (running the
  // hooks again) when a later step fails before anything is submitted.
  struct LiveShapes {
    std::vector<Dims> dims;                     // per input (tensors)
    std::vector<int64_t> symints;               // per input (symbolic ints)
    std::vector<std::vector<uint8_t>> watched;  // the watched inputs' bytes
  };
  void check_output_options(const ExecuteOptions& options) const;
  LiveShapes set_live_shapes(std::span<const InputView> inputs);
  void restore_live_shapes(LiveShapes before);
  // Records every dispatch and the copies of the outputs (into `fresh` for
  // device outputs, into the readback buffers for host ones).
  void encode(gpu::CommandBatch& batch, std::span<const InputView> inputs, const std::vector<gpu::BindGroup>& rebound,
              const std::vector<DeviceMemoryBuffer>& fresh, const std::vector<uint64_t>& live_bytes,
              const ExecuteOptions& options, ExecuteTraffic& traffic);
  // After the batch is done: the outputs at their live shapes.
  std::vector<OutputTensor> read_outputs(std::vector<DeviceMemoryBuffer> fresh, const std::vector<uint64_t>& live_bytes,
                                         const ExecuteOptions& options, ExecuteTraffic& traffic);

  gpu::Device& device_;
  GraphState state_;
  MemoryPlan memory_;
  std::unique_ptr<ScratchPool> scratch_;
  std::vector<gpu::Buffer> readback_;  // one per output, at its maximum size
  std::vector<gpu::DispatchTiming> timings_;
  HostTimes host_times_;
  size_t submit_every_ = kSubmitEveryProgram;  // LoadOptions::submit_every, resolved
  uint64_t hooks_fired_last_ = 0;
  uint64_t last_submission_ = 0;
  ExecuteTraffic traffic_;
  // The last rebinding whose device inputs were all the graph's own buffers
  // (per input, the buffer or null) and its bind groups: they live as long
  // as the graph, so the groups are kept (a decode step fed from the graph's
  // sampled tokens rebinds nothing new).
  std::vector<const gpu::Buffer*> kept_rebinding_;
  std::vector<gpu::BindGroup> kept_groups_;
  std::vector<gpu::BindGroup> call_groups_;  // a caller's buffers' groups, for one call
};

}  // namespace wgrt
