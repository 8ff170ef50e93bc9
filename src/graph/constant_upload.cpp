#include "graph/constant_upload.h"

#include <algorithm>

#include "gpu/buffer.h"
#include "gpu/command_batch.h"
#include "gpu/device.h"
#include "gpu/upload_ring.h"
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
// Staging slots of a chunk each: two being filled or committed, and the GPU
// copying the others meanwhile.
constexpr size_t kStagingSlots = 4;
}  // namespace

ConstantUploader::ConstantUploader(gpu::Device& device, uint64_t chunk_bytes, int threads, uint64_t total,
                                   std::function<void(uint64_t, uint64_t)> on_progress)
    : device_(device), chunk_bytes_(std::max<uint64_t>(chunk_bytes, 4)), total_(total),
      on_progress_(std::move(on_progress)),
      workers_(threads < 0 ? WorkerPool::default_threads(kMostWorkers) : size_t(threads)) {}

void ConstantUploader::produce(const ConstantSource& rows, uint64_t first, uint64_t n, uint8_t* chunk,
                               TaskGroup& group) {
  const uint64_t row_bytes = rows.row_bytes();
  // Pieces of at least kLeastPieceBytes: below that a thread's handoff costs
  // more than the copy.
  const uint64_t most = std::max<uint64_t>(1, n * row_bytes / kLeastPieceBytes);
  const uint64_t pieces = std::min<uint64_t>({std::max<size_t>(workers_.threads(), 1), n, most});
  std::vector<std::function<void()>> tasks;
  for (uint64_t p = 0; p < pieces; ++p) {
    const uint64_t a = first + n * p / pieces, b = first + n * (p + 1) / pieces;
    uint8_t* out = chunk + (a - first) * row_bytes;
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
  queued_ += bytes.size();
  if (queued_ >= kChunksPerWindow * chunk_bytes_) submit_window();
  note_done(bytes.size());
  return written;
}

void ConstantUploader::note_done(uint64_t bytes) {
  done_ += bytes;
  if (on_progress_) on_progress_(done_, total_);
}

void ConstantUploader::upload(const Tensor& t, const ConstantSource& rows, uint64_t first, uint64_t count,
                              const gpu::Buffer& buffer, uint64_t offset, const std::string& what) {
  const uint64_t row_bytes = rows.row_bytes();
  if (row_bytes == 0 || count == 0) return;
  // Rows the device stores in another layout (i64 narrowed to i32), rows
  // larger than a chunk, and every row where a mapped range is a copy
  // itself (a browser) go through host chunks and queued writes; the rest
  // are produced straight into mapped staging.
  if (t.dtype == DType::I64 || row_bytes > chunk_bytes_ || !device_.direct_mapped_writes()) {
    upload_through_host(t, rows, first, count, buffer, offset, what);
  } else {
    upload_mapped(rows, first, count, buffer, offset);
  }
}

// Rows [first, first + count) in runs of `per_run`, two at a time: the
// workers produce run r + 1 (`start(k, from, n)` into target k, counted in
// groups[k]) while this thread hands on run r (`finish(k, from, n)`). Both
// groups are waited for before this returns, an error included: the tasks
// point at the rows and the targets.
template <typename Start, typename Finish>
void ConstantUploader::two_runs_at_a_time(uint64_t first, uint64_t count, uint64_t per_run, Start&& start,
                                          Finish&& finish) {
  TaskGroup groups[2];
  try {
    size_t k = 0;
    start(k, first, std::min(per_run, count), groups[k]);
    for (uint64_t r = first, end = first + count; r < end; r += per_run, k = 1 - k) {
      const uint64_t n = std::min(per_run, end - r), next = r + n;
      groups[k].wait();
      if (next < end) start(1 - k, next, std::min(per_run, end - next), groups[1 - k]);
      finish(k, r, n);
    }
  } catch (...) {
    for (TaskGroup& g : groups) g.wait_quietly();
    throw;
  }
}

void ConstantUploader::upload_mapped(const ConstantSource& rows, uint64_t first, uint64_t count,
                                     const gpu::Buffer& buffer, uint64_t offset) {
  if (!ring_) ring_ = std::make_unique<gpu::UploadRing>(device_, kStagingSlots, chunk_bytes_);
  const uint64_t row_bytes = rows.row_bytes();
  // Each run in a staging slot, committed (its copy submitted) when produced.
  gpu::UploadRing::Staging held[2];
  bool holding[2] = {false, false};
  try {
    two_runs_at_a_time(
        first, count, chunk_bytes_ / row_bytes,
        [&](size_t k, uint64_t from, uint64_t n, TaskGroup& group) {
          held[k] = ring_->acquire();
          holding[k] = true;
          produce(rows, from, n, held[k].bytes.data(), group);
        },
        [&](size_t k, uint64_t, uint64_t n) {
          ring_->commit(held[k], n * row_bytes, buffer, offset);
          holding[k] = false;
          offset += n * row_bytes;
          note_done(n * row_bytes);
        });
  } catch (...) {
    for (size_t k = 0; k < 2; ++k) {
      if (holding[k]) ring_->abandon(held[k]);
    }
    throw;
  }
}

void ConstantUploader::upload_through_host(const Tensor& t, const ConstantSource& rows, uint64_t first,
                                           uint64_t count, const gpu::Buffer& buffer, uint64_t offset,
                                           const std::string& what) {
  const uint64_t row_bytes = rows.row_bytes();
  // Each run in one of two reused host chunks, converted and queued as a write.
  two_runs_at_a_time(
      first, count, std::max<uint64_t>(1, chunk_bytes_ / row_bytes),
      [&](size_t k, uint64_t from, uint64_t n, TaskGroup& group) {
        if (chunks_[k].size() < n * row_bytes) chunks_[k].resize(n * row_bytes);
        produce(rows, from, n, chunks_[k].data(), group);
      },
      [&](size_t k, uint64_t from, uint64_t n) {
        offset += write(t, std::span<const uint8_t>(chunks_[k].data(), n * row_bytes), buffer, offset, what, from);
      });
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
  if (ring_) ring_->finish();
}

}  // namespace wgrt
