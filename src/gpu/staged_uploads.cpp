#include "gpu/staged_uploads.h"

#include <algorithm>
#include <string>

#include "gpu/command_batch.h"
#include "wgrt/error.h"

namespace wgrt::gpu {
namespace {
constexpr uint64_t kFirstCapacity = 64 * 1024;
constexpr uint64_t align4(uint64_t n) { return (n + 3) & ~uint64_t{3}; }
}  // namespace

void StagedUploads::upload(CommandBatch& batch, const Buffer& dst, uint64_t dst_offset,
                           std::span<const uint8_t> bytes) {
  if (bytes.empty()) return;
  if (dst_offset % 4 != 0) {
    throw Error(ErrorCode::Internal, "staged upload to offset " + std::to_string(dst_offset) + " (not a multiple of 4)");
  }
  if (batch.id() != batch_id_) {  // a new batch: the last one's copies are ordered before its writes
    batch_id_ = batch.id();
    cursor_ = 0;
    outgrown_.clear();
  }
  const uint64_t padded = align4(bytes.size());
  if (!staging_ || cursor_ + padded > staging_.size()) {
    const uint64_t capacity = std::max({kFirstCapacity, 2 * (staging_ ? staging_.size() : 0), 2 * padded});
    Buffer bigger = Buffer::create(device_, capacity, BufferKind::Upload, "staged uploads");
    if (staging_) outgrown_.push_back(std::move(staging_));
    staging_ = std::move(bigger);
    cursor_ = 0;
  }
  staging_.write(cursor_, bytes.data(), bytes.size());
  batch.copy(staging_, cursor_, dst, dst_offset, padded);
  cursor_ += padded;
}

uint64_t StagedUploads::bytes() const {
  uint64_t total = staging_ ? staging_.size() : 0;
  for (const Buffer& b : outgrown_) total += b.size();
  return total;
}

}  // namespace wgrt::gpu
