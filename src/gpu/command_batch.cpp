#include "gpu/command_batch.h"

#include <atomic>

#include <webgpu.h>

#include <cstring>

#include "gpu/device.h"
#include "gpu/native.h"
#include "gpu/pipeline_cache.h"
#include "gpu/webgpu_util.h"
#include "wgrt/error.h"

namespace wgrt::gpu {
namespace {
// WebGPU caps a query set at 4096 queries: 2048 timed dispatches per batch.
constexpr uint32_t kMaxQueries = 4096;

// What an injected queue-submit failure throws: WebGPU's submit reports no
// error of its own, so this stands for one the device would report after it.
Error submit_failed() { return Error(ErrorCode::Internal, "submitting GPU work: injected failure (test hook)"); }
}  // namespace

CommandBatch::CommandBatch(Device& device, bool time_dispatches)
    : device_(device), timing_(time_dispatches && device.features().timestamp_query) {
  static std::atomic<uint64_t> serials{0};
  serial_ = ++serials;
  device_.throw_if_lost();
  if (timing_ && device_.consume_injected_failure(Device::Site::QuerySet)) {
    throw Error(ErrorCode::OutOfMemory, "creating the dispatch timestamp query set: injected failure (test hook)");
  }
  encoder_.reset(wgpuDeviceCreateCommandEncoder(device_.raw(), nullptr));
  if (timing_) {
    WGPUQuerySetDescriptor qdesc = WGPU_QUERY_SET_DESCRIPTOR_INIT;
    qdesc.label = to_view("dispatch timestamps");
    qdesc.type = WGPUQueryType_Timestamp;
    qdesc.count = kMaxQueries;
    queries_.reset(wgpuDeviceCreateQuerySet(device_.raw(), &qdesc));
    query_capacity_ = kMaxQueries;
  }
}

// The handles release the encoder and the query set (release only, no
// Destroy: wgpu-native 29 panics on Release after Destroy of a query set).
CommandBatch::~CommandBatch() { end_pass(); }

void CommandBatch::end_pass() {
  if (!pass_) return;
  wgpuComputePassEncoderEnd(pass_.get());
  pass_.reset();
  pass_pipeline_ = nullptr;
  pass_group_ = nullptr;
}

void CommandBatch::copy(const Buffer& src, uint64_t src_offset, const Buffer& dst, uint64_t dst_offset,
                        uint64_t bytes) {
  if (submitted_) throw Error(ErrorCode::Internal, "CommandBatch::copy after submit");
  end_pass();
  wgpuCommandEncoderCopyBufferToBuffer(encoder_.get(), src.raw(), src_offset, dst.raw(), dst_offset, (bytes + 3) & ~3ull);
}

void CommandBatch::dispatch(const ComputePipeline& pipeline, const BindGroup& group, WorkgroupCount count,
                            std::string_view label) {
  if (submitted_) throw Error(ErrorCode::Internal, "CommandBatch::dispatch after submit");
  if (count.total() == 0) return;
  const bool timed = timing_ && 2 * (timings_.size() + 1) <= query_capacity_;
  if (timed) {
    end_pass();
    WGPUPassTimestampWrites writes = WGPU_PASS_TIMESTAMP_WRITES_INIT;
    writes.querySet = queries_.get();
    writes.beginningOfPassWriteIndex = static_cast<uint32_t>(2 * timings_.size());
    writes.endOfPassWriteIndex = static_cast<uint32_t>(2 * timings_.size() + 1);
    WGPUComputePassDescriptor pdesc = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
    pdesc.timestampWrites = &writes;
    pass_.reset(wgpuCommandEncoderBeginComputePass(encoder_.get(), &pdesc));
    timings_.push_back({label.empty() ? pipeline.label() : std::string(label), 0});
  } else if (!pass_) {
    pass_.reset(wgpuCommandEncoderBeginComputePass(encoder_.get(), nullptr));
  }
  if (pass_pipeline_ != pipeline.raw()) {
    wgpuComputePassEncoderSetPipeline(pass_.get(), pipeline.raw());
    pass_pipeline_ = pipeline.raw();
  }
  if (pass_group_ != group.raw()) {
    wgpuComputePassEncoderSetBindGroup(pass_.get(), 0, group.raw(), 0, nullptr);
    pass_group_ = group.raw();
  }
  wgpuComputePassEncoderDispatchWorkgroups(pass_.get(), count.x, count.y, count.z);
  ++dispatches_;
  if (timed) end_pass();
}

void CommandBatch::flush() {
  if (submitted_ || timing_) return;
  device_.throw_if_lost();
  if (device_.consume_injected_failure(Device::Site::Submit)) throw submit_failed();
  end_pass();
  const Handle<WGPUCommandBuffer> cmd = finish();
  submission_ = native::submit(device_.queue(), cmd.get());
  encoder_.reset(wgpuDeviceCreateCommandEncoder(device_.raw(), nullptr));
}

Handle<WGPUCommandBuffer> CommandBatch::finish() {
  Handle<WGPUCommandBuffer> cmd(wgpuCommandEncoderFinish(encoder_.get(), nullptr));
  // A validation error while recording (reported by now, through the
  // device's error callback) leaves an invalid command buffer, and
  // wgpu-native aborts the process when one is submitted: throw instead.
  // The batch cannot be submitted afterwards.
  try {
    device_.check_errors();
  } catch (...) {
    submitted_ = true;
    throw;
  }
  return cmd;
}

void CommandBatch::submit() {
  if (submitted_) throw Error(ErrorCode::Internal, "CommandBatch submitted twice");
  device_.throw_if_lost();
  if (device_.consume_injected_failure(Device::Site::Submit)) throw submit_failed();
  end_pass();
  if (timing_ && !timings_.empty()) {
    const uint64_t bytes = timings_.size() * 2 * sizeof(uint64_t);
    query_resolve_ = Buffer::create(device_, bytes, BufferKind::QueryResolve, "timestamp resolve");
    query_readback_ = Buffer::create(device_, bytes, BufferKind::Readback, "timestamp readback");
    wgpuCommandEncoderResolveQuerySet(encoder_.get(), queries_.get(), 0, static_cast<uint32_t>(timings_.size() * 2),
                                      query_resolve_.raw(), 0);
    wgpuCommandEncoderCopyBufferToBuffer(encoder_.get(), query_resolve_.raw(), 0, query_readback_.raw(), 0, bytes);
  }
  const Handle<WGPUCommandBuffer> cmd = finish();
  submission_ = native::submit(device_.queue(), cmd.get());
  submitted_ = true;
  device_.check_errors();
}

void CommandBatch::wait() {
  if (!submitted_) submit();
  device_.wait_idle();
  if (timing_ && !timings_.empty()) {
    const std::vector<uint8_t> raw = query_readback_.read();
    std::vector<uint64_t> ticks(timings_.size() * 2);
    std::memcpy(ticks.data(), raw.data(), ticks.size() * sizeof(uint64_t));
    // WebGPU timestamps are nanoseconds.
    for (size_t i = 0; i < timings_.size(); ++i) {
      timings_[i].gpu_ns = ticks[2 * i + 1] >= ticks[2 * i] ? double(ticks[2 * i + 1] - ticks[2 * i]) : 0.0;
    }
  }
}

}  // namespace wgrt::gpu
