#include "gpu/readback_ring.h"

#include <webgpu.h>

#include <cstring>
#include <string>

#include "gpu/command_batch.h"
#include "gpu/device.h"
#include "wgrt/error.h"

namespace wgrt::gpu {

ReadbackRing::ReadbackRing(Device& device, size_t slots, uint64_t bytes) : device_(device), bytes_((bytes + 3) & ~3ull) {
  if (slots == 0) throw Error(ErrorCode::InvalidArgument, "a readback ring needs at least one slot");
  for (size_t i = 0; i < slots; ++i) {
    auto s = std::make_unique<Slot>();
    s->buffer = Buffer::create(device, bytes_, BufferKind::Readback, "readback ring " + std::to_string(i));
    slots_.push_back(std::move(s));
  }
}

ReadbackRing::~ReadbackRing() {
  try {
    discard_all();
  } catch (...) {  // a lost device: nothing left to wait for
  }
}

bool ReadbackRing::free(size_t slot) const { return !slots_.at(slot)->requested; }

void ReadbackRing::record_copy(CommandBatch& batch, const Buffer& src, uint64_t src_offset, size_t slot) {
  Slot& s = *slots_.at(slot);
  if (s.requested) throw Error(ErrorCode::Internal, "readback ring: slot " + std::to_string(slot) + " is still in use");
  batch.copy(src, src_offset, s.buffer, 0, bytes_);
}

void ReadbackRing::request(size_t slot, uint64_t submission) {
  Slot& s = *slots_.at(slot);
  s.requested = true;
  s.map.request(device_, s.buffer, false, bytes_, submission);
}

void ReadbackRing::take(size_t slot, void* out) {
  Slot& s = *slots_.at(slot);
  if (!s.requested) throw Error(ErrorCode::Internal, "readback ring: slot " + std::to_string(slot) + " was not filled");
  s.map.wait(device_);
  s.requested = false;
  if (!s.map.ok) {
    throw Error(ErrorCode::Internal, "readback ring: mapping slot " + std::to_string(slot) + " failed: " + s.map.message);
  }
  std::memcpy(out, wgpuBufferGetConstMappedRange(s.buffer.raw(), 0, bytes_), bytes_);
  wgpuBufferUnmap(s.buffer.raw());
}

void ReadbackRing::discard_all() {
  for (auto& s : slots_) {
    if (!s->requested) continue;
    s->map.wait(device_);
    s->requested = false;
    if (s->map.ok) wgpuBufferUnmap(s->buffer.raw());
  }
}

}  // namespace wgrt::gpu
