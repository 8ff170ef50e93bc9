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
// Threads that read and repack chunks: reading is a memory copy from the page
// cache and repacking a pass over the bytes, so a few threads reach the
// memory bandwidth one thread is far from.
constexpr size_t kMostWorkers = 8;
constexpr uint64_t kLeastPieceBytes = uint64_t{1} << 20;
}  // namespace

ConstantUploader::ConstantUploader(gpu::Device& device, uint64_t chunk_bytes, int threads, uint64_t total,
                                   std::function<void(uint64_t, uint64_t)> on_progress)
    : device_(device), chunk_bytes_(std::max<uint64_t>(chunk_bytes, 4)), total_(total),
      on_progress_(std::move(on_progress)),
      workers_(threads < 0 ? WorkerPool::default_threads(kMostWorkers) : size_t(threads)) {}

void ConstantUploader::produce(const ConstantSource& rows, uint64_t first, uint64_t n, std::vector<uint8_t>& chunk,
                               TaskGroup& group) {
  const uint64_t row_bytes = rows.row_bytes();
  if (chunk.size() < n * row_bytes) chunk.resize(n * row_bytes);
  // Pieces of at least kLeastPieceBytes: below that a thread's handoff costs
  // more than the copy.
  const uint64_t most = std::max<uint64_t>(1, n * row_bytes / kLeastPieceBytes);
  const uint64_t pieces = std::min<uint64_t>({std::max<size_t>(workers_.threads(), 1), n, most});
  std::vector<std::function<void()>> tasks;
  for (uint64_t p = 0; p < pieces; ++p) {
    const uint64_t a = first + n * p / pieces, b = first + n * (p + 1) / pieces;
    uint8_t* out = chunk.data() + (a - first) * row_bytes;
    tasks.emplace_back([&rows, a, b, out] { rows.read_rows(a, b - a, out); });
  }
  workers_.submit(std::move(tasks), group);
}

uint64_t ConstantUploader::write(const Tensor& t, std::span<const uint8_t> bytes, const gpu::Buffer& buffer,
                                 uint64_t offset, const std::string& what, uint64_t first_row) {
  uint64_t written = bytes.size();
  if (t.dtype == DType::I64) {
    const std::vector<uint8_t> narrow = to_device_layout(t.dtype, bytes, what + " rows from " + std::to_string(first_row));
    buffer.write(offset, narrow.data(), narrow.size());
    written = narrow.size();
  } else {
    buffer.write(offset, bytes.data(), bytes.size());
  }
  done_ += bytes.size();
  queued_ += bytes.size();
  if (queued_ >= kChunksPerWindow * chunk_bytes_) submit_window();
  if (on_progress_) on_progress_(done_, total_);
  return written;
}

void ConstantUploader::upload(const Tensor& t, const ConstantSource& rows, uint64_t first, uint64_t count,
                              const gpu::Buffer& buffer, uint64_t offset, const std::string& what) {
  const uint64_t row_bytes = rows.row_bytes();
  if (row_bytes == 0 || count == 0) return;
  const uint64_t per_run = std::max<uint64_t>(1, chunk_bytes_ / row_bytes), end = first + count;
  // Two runs at a time: run r is written from chunks_[k] while the workers
  // produce the next into chunks_[1 - k]. Both groups are waited for before
  // this returns, an error included: the tasks point at `rows` and the chunks.
  TaskGroup groups[2];
  try {
    size_t k = 0;
    produce(rows, first, std::min(per_run, count), chunks_[k], groups[k]);
    for (uint64_t r = first; r < end; r += per_run, k = 1 - k) {
      const uint64_t n = std::min(per_run, end - r), next = r + n;
      groups[k].wait();
      if (next < end) produce(rows, next, std::min(per_run, end - next), chunks_[1 - k], groups[1 - k]);
      offset += write(t, std::span<const uint8_t>(chunks_[k].data(), n * row_bytes), buffer, offset, what, r);
    }
  } catch (...) {
    for (TaskGroup& g : groups) g.wait_quietly();
    throw;
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
