// Bytes for GPU buffers that must arrive at a point inside a command batch,
// not before it: when several graph runs share one submit, each run's
// inputs and changed uniforms have to reach their buffers between the runs'
// dispatches. A queue write cannot do that (every queue write lands before
// the whole submit), so upload() queue-writes the bytes into staging space
// of its own and records a copy from there in the batch, where the run's
// dispatches follow it.
//
// Staging space is handed out afresh for each batch (batches are told apart
// by CommandBatch::id()) and reused by the next one: the queue orders the
// next batch's queue writes after the previous batch's copies.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gpu/buffer.h"

namespace wgrt::gpu {

class CommandBatch;
class Device;

class StagedUploads {
 public:
  explicit StagedUploads(Device& device) : device_(device) {}
  StagedUploads(const StagedUploads&) = delete;
  StagedUploads& operator=(const StagedUploads&) = delete;

  // Records into `batch` a copy of `bytes` to `dst` at `dst_offset` (both
  // multiples of 4; `bytes` is padded to 4 in staging). The staging buffer
  // grows (a new one, the old kept until the batch changes) when one batch
  // needs more than it holds.
  void upload(CommandBatch& batch, const Buffer& dst, uint64_t dst_offset, std::span<const uint8_t> bytes);

  // Staging memory held (memory_stats' staging bytes).
  uint64_t bytes() const;

 private:
  Device& device_;
  uint64_t batch_id_ = 0;
  uint64_t cursor_ = 0;
  Buffer staging_;
  std::vector<Buffer> outgrown_;  // still read by the open batch's copies
};

}  // namespace wgrt::gpu
