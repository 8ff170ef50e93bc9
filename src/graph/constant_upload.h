// Puts constants into their GPU buffers a run of rows at a time. Each run is
// read from its source (constant_source.h: the model file, through any
// repacking) straight into a mapped staging buffer of a small ring
// (gpu/upload_ring.h), whose copy the GPU then makes: one host pass over
// every byte. Rows stored in another layout on the device (i64 as i32) go
// through one of two reused host chunks instead, converted and queued as a
// buffer write, the queue submitted every few runs. So neither host memory
// nor staging grows with the model: a 40 GB model loads through a few chunks.
//
// Reading and repacking are split over a few worker threads (each run in as
// many pieces of rows) and run one run ahead: while this thread hands run i
// to the queue, the workers produce run i + 1. Sources are read from several
// threads at once (RangeReader says so).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/worker_pool.h"
#include "graph/value.h"

namespace wgrt {
namespace gpu {
class Buffer;
class CommandBatch;
class Device;
class UploadRing;
}  // namespace gpu

// Host bytes a constant is read through at a time, unless a row is larger.
inline constexpr uint64_t kDefaultUploadChunkBytes = uint64_t{16} << 20;

class ConstantUploader {
 public:
  // `on_progress(done, total)` in host bytes after each run; `total` is the
  // sum of the constants' host sizes. `threads`: as Tuning::upload_threads.
  ConstantUploader(gpu::Device& device, uint64_t chunk_bytes, int threads, uint64_t total,
                   std::function<void(uint64_t, uint64_t)> on_progress);
  ~ConstantUploader();

  // Rows [first, first + count) of constant `t` (its host bytes as rows,
  // constant_rows) into `buffer` from byte `offset` on.
  void upload(const Tensor& t, const ConstantSource& rows, uint64_t first, uint64_t count, const gpu::Buffer& buffer,
              uint64_t offset, const std::string& what);
  // Waits until every queued write is on the GPU.
  void finish();

 private:
  void submit_window();
  void upload_mapped(const ConstantSource& rows, uint64_t first, uint64_t count, const gpu::Buffer& buffer,
                     uint64_t offset);
  void upload_through_host(const Tensor& t, const ConstantSource& rows, uint64_t first, uint64_t count,
                           const gpu::Buffer& buffer, uint64_t offset, const std::string& what);
  template <typename Start, typename Finish>
  void two_runs_at_a_time(uint64_t first, uint64_t count, uint64_t per_run, Start&& start, Finish&& finish);
  // Starts producing rows [first, first + n) into `chunk` on the workers.
  void produce(const ConstantSource& rows, uint64_t first, uint64_t n, uint8_t* chunk, TaskGroup& group);
  void note_done(uint64_t bytes);
  // Queues a produced chunk's write into `buffer` at `offset`; returns the bytes written.
  uint64_t write(const Tensor& t, std::span<const uint8_t> bytes, const gpu::Buffer& buffer, uint64_t offset,
                 const std::string& what, uint64_t first_row);

  gpu::Device& device_;
  uint64_t chunk_bytes_, total_, done_ = 0, queued_ = 0;
  std::function<void(uint64_t, uint64_t)> on_progress_;
  WorkerPool workers_;
  std::unique_ptr<gpu::UploadRing> ring_;  // made at the first mapped upload
  std::vector<uint8_t> chunks_[2];
  std::unique_ptr<gpu::CommandBatch> in_flight_;  // the last window's submit
};

}  // namespace wgrt
