#include "gpu/upload_ring.h"

#include <webgpu.h>

#include <cstring>

#include "gpu/command_batch.h"
#include "gpu/device.h"
#include "wgrt/error.h"

namespace wgrt::gpu {

UploadRing::UploadRing(Device& device, size_t slots, uint64_t bytes) : device_(device), bytes_((bytes + 3) & ~3ull) {
  if (slots < 2) throw Error(ErrorCode::InvalidArgument, "an upload ring needs at least two slots");
  for (size_t i = 0; i < slots; ++i) {
    auto s = std::make_unique<Slot>();
    s->buffer = Buffer::create(device, bytes_, BufferKind::Upload, "upload staging " + std::to_string(i));
    slots_.push_back(std::move(s));
  }
}

UploadRing::~UploadRing() {
  for (auto& s : slots_) {
    try {
      if (s->mapping) wait_mapped(*s);
    } catch (...) {  // a lost device or a failed map: nothing left to wait for
    }
  }
}

void UploadRing::wait_mapped(Slot& s) {
  s.map.wait(device_);
  s.mapping = false;
  if (!s.map.ok) {
    throw Error(ErrorCode::Internal, "upload staging: mapping a buffer for writing failed: " + s.map.message);
  }
}

UploadRing::Staging UploadRing::acquire() {
  const size_t index = next_;
  Slot& s = *slots_[index];
  if (s.held) {
    throw Error(ErrorCode::Internal, "upload ring: all " + std::to_string(slots_.size()) + " slots are held");
  }
  if (s.mapping) wait_mapped(s);
  auto* data = static_cast<uint8_t*>(wgpuBufferGetMappedRange(s.buffer.raw(), 0, bytes_));
  if (data == nullptr) throw Error(ErrorCode::Internal, "upload ring: a staging buffer is not mapped");
  s.held = true;
  next_ = (next_ + 1) % slots_.size();
  return Staging{index, std::span<uint8_t>(data, bytes_)};
}

void UploadRing::commit(const Staging& staging, uint64_t bytes, const Buffer& dst, uint64_t offset) {
  Slot& s = *slots_.at(staging.slot);
  if (!s.held) throw Error(ErrorCode::Internal, "upload ring: slot " + std::to_string(staging.slot) + " is not held");
  const uint64_t padded = (bytes + 3) & ~3ull;
  if (padded > bytes_ || offset % 4 != 0 || offset + padded > dst.size()) {
    throw Error(ErrorCode::InvalidArgument, "upload of " + std::to_string(bytes) + " bytes at offset " +
                                                std::to_string(offset) + " into a buffer of " +
                                                std::to_string(dst.size()) + " bytes through staging of " +
                                                std::to_string(bytes_));
  }
  std::memset(staging.bytes.data() + bytes, 0, padded - bytes);
  s.held = false;
  wgpuBufferUnmap(s.buffer.raw());
  // Until its map is requested the slot reads as refused, so that an error
  // below is reported by the slot's next acquire() rather than a null range.
  s.mapping = true;
  s.map = MapRequest{};
  s.map.done = true;
  s.map.message = "its copy was not submitted";
  CommandBatch batch(device_);
  if (padded > 0) batch.copy(s.buffer, 0, dst, offset, padded);
  batch.submit();
  s.map.request(device_, s.buffer, true, bytes_, batch.submission());
}

void UploadRing::abandon(const Staging& staging) { slots_.at(staging.slot)->held = false; }

void UploadRing::finish() {
  for (auto& s : slots_) {
    if (s->mapping) wait_mapped(*s);
  }
}

}  // namespace wgrt::gpu
