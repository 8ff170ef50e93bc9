// Records copies and compute dispatches into one command encoder and submits
// them once. Consecutive dispatches share one compute pass (WebGPU orders
// storage writes between dispatches of a pass), so a whole graph is one pass.
//
// With timing on (and timestamp-query granted), each dispatch gets its own
// pass with timestamp writes at its start and end, and timings() returns the
// GPU time of each after wait().
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/handle.h"
#include "gpu/workgroups.h"

namespace wgrt::gpu {

class BindGroup;
class ComputePipeline;
class Device;

struct DispatchTiming {
  std::string label;
  double gpu_ns = 0;
};

class CommandBatch {
 public:
  // Timing is silently off when the device lacks timestamp-query; check
  // timing_enabled().
  explicit CommandBatch(Device& device, bool time_dispatches = false);
  ~CommandBatch();
  CommandBatch(const CommandBatch&) = delete;
  CommandBatch& operator=(const CommandBatch&) = delete;

  bool timing_enabled() const { return timing_; }

  void copy(const Buffer& src, uint64_t src_offset, const Buffer& dst, uint64_t dst_offset, uint64_t bytes);
  // `label` names the dispatch in timings (the pipeline's label if empty);
  // it is copied only when timing.
  void dispatch(const ComputePipeline& pipeline, const BindGroup& group, WorkgroupCount count,
                std::string_view label = {});
  size_t dispatch_count() const { return dispatches_; }

  // Submits what was recorded so far and goes on recording into a new
  // encoder, so the GPU starts on the first part while the CPU encodes the
  // rest. Ignored when timing (all queries resolve in one command buffer).
  void flush();
  // Ends recording and submits. The batch cannot record after this.
  void submit();
  // Waits until the submitted work is done; throws any WebGPU error it raised.
  void wait();
  const std::vector<DispatchTiming>& timings() const { return timings_; }
  // The index of the last submit (flush or submit), for ReadbackRing.
  uint64_t submission() const { return submission_; }
  // Distinct for every batch the process makes (an address may be reused):
  // for state written once per batch (ops::GpuSampler's rows).
  uint64_t serial() const { return serial_; }

 private:
  void end_pass();
  // Ends the encoder; throws the first WebGPU error recorded so far.
  Handle<WGPUCommandBuffer> finish();

  Device& device_;
  Handle<WGPUCommandEncoder> encoder_;
  Handle<WGPUComputePassEncoder> pass_;
  // What the open pass has set, so a repeat costs no call into wgpu-native
  // (each is ~0.1 us of the per-dispatch encode budget).
  WGPUComputePipeline pass_pipeline_ = nullptr;
  WGPUBindGroup pass_group_ = nullptr;
  bool timing_ = false;
  bool submitted_ = false;
  size_t dispatches_ = 0;
  uint64_t submission_ = 0;
  uint64_t serial_ = 0;
  Handle<WGPUQuerySet> queries_;
  uint32_t query_capacity_ = 0;
  Buffer query_resolve_;
  Buffer query_readback_;
  std::vector<DispatchTiming> timings_;
};

}  // namespace wgrt::gpu
