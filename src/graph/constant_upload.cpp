#include "graph/constant_upload.h"

#include <algorithm>

#include "gpu/buffer.h"
#include "gpu/command_batch.h"
#include "gpu/device.h"
#include "graph/memory_plan.h"

namespace wgrt {

namespace {
// Queued writes between submits: the queue stages each write's bytes until
// its submission is done, so this (twice: one window in flight while the
// next fills) bounds that copy as the chunk bounds ours.
constexpr uint64_t kChunksPerWindow = 4;
}  // namespace

ConstantUploader::ConstantUploader(gpu::Device& device, uint64_t chunk_bytes, uint64_t total,
                                   std::function<void(uint64_t, uint64_t)> on_progress)
    : device_(device), chunk_bytes_(std::max<uint64_t>(chunk_bytes, 4)), total_(total),
      on_progress_(std::move(on_progress)) {}

void ConstantUploader::upload(const Tensor& t, const ConstantSource& rows, uint64_t first, uint64_t count,
                              const gpu::Buffer& buffer, uint64_t offset, const std::string& what) {
  const uint64_t row_bytes = rows.row_bytes();
  if (row_bytes == 0 || count == 0) return;
  const uint64_t per_run = std::max<uint64_t>(1, chunk_bytes_ / row_bytes);
  for (uint64_t r = first; r < first + count; r += per_run) {
    const uint64_t n = std::min(per_run, first + count - r), host = n * row_bytes;
    if (chunk_.size() < host) chunk_.resize(host);
    rows.read_rows(r, n, chunk_.data());
    const std::span<const uint8_t> bytes(chunk_.data(), host);
    if (t.dtype == DType::I64) {
      const std::vector<uint8_t> narrow = to_device_layout(t.dtype, bytes, what + " rows from " + std::to_string(r));
      buffer.write(offset, narrow.data(), narrow.size());
      offset += narrow.size();
    } else {
      buffer.write(offset, bytes.data(), bytes.size());
      offset += bytes.size();
    }
    done_ += host;
    queued_ += host;
    if (queued_ >= kChunksPerWindow * chunk_bytes_) submit_window();
    if (on_progress_) on_progress_(done_, total_);
  }
}

ConstantUploader::~ConstantUploader() = default;

void ConstantUploader::submit_window() {
  auto batch = std::make_unique<gpu::CommandBatch>(device_);
  batch->submit();  // carries the writes queued since the last submit
  // The window before this one: once done, its staging is released. The
  // GPU copies one window while this thread reads and repacks the next.
  if (in_flight_) in_flight_->wait();
  in_flight_ = std::move(batch);
  queued_ = 0;
}

void ConstantUploader::finish() {
  if (queued_ > 0) submit_window();
  if (in_flight_) in_flight_->wait();
  in_flight_.reset();
}

}  // namespace wgrt
