#include "graph/uniform_arena.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "gpu/device.h"
#include "wgrt/error.h"

namespace wgrt {

namespace {

// Blocks double from 4 KiB to 64 KiB (the smallest maximum uniform binding
// WebGPU guarantees), so small graphs stay small and large ones need few blocks.
constexpr uint64_t kFirstBlockBytes = 4096;
constexpr uint64_t kLargestBlockBytes = 65536;

uint64_t round_up(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

}  // namespace

UniformId UniformArena::allocate(gpu::Device& device, size_t bytes) {
  const uint64_t size = round_up(std::max<size_t>(bytes, 16), 16);
  const uint64_t align = std::max<uint64_t>(device.limits().min_uniform_buffer_offset_alignment, 16);
  if (blocks_.empty() || round_up(blocks_.back().used, align) + size > blocks_.back().host.size()) {
    const uint64_t previous = blocks_.empty() ? kFirstBlockBytes / 2 : blocks_.back().host.size();
    const uint64_t block_bytes = std::max(std::min(previous * 2, kLargestBlockBytes), round_up(size, kFirstBlockBytes));
    Block b;
    b.buffer = gpu::Buffer::create(device, block_bytes, gpu::BufferKind::Uniform,
                                   "uniforms " + std::to_string(blocks_.size()));
    b.host.assign(block_bytes, 0);  // WebGPU zero-fills new buffers: the copy starts equal
    blocks_.push_back(std::move(b));
  }
  Block& b = blocks_.back();
  const uint64_t offset = round_up(b.used, align);
  b.used = offset + size;
  slots_.push_back({blocks_.size() - 1, offset, size});
  return slots_.size() - 1;
}

gpu::BufferBinding UniformArena::binding(UniformId u) const {
  const Slot& s = slots_.at(u);
  return {&blocks_[s.block].buffer, s.offset, s.bytes};
}

void UniformArena::write(UniformId u, const void* data, size_t bytes) {
  const Slot& s = slots_.at(u);
  if (bytes > s.bytes) {
    throw Error(ErrorCode::Internal, "a write of " + std::to_string(bytes) + " bytes overruns uniform " +
                                         std::to_string(u) + " of " + std::to_string(s.bytes) + " bytes");
  }
  Block& b = blocks_[s.block];
  uint8_t* dst = b.host.data() + s.offset;
  if (std::memcmp(dst, data, bytes) == 0) return;
  std::memcpy(dst, data, bytes);
  b.dirty_begin = std::min(b.dirty_begin, s.offset);
  b.dirty_end = std::max(b.dirty_end, s.offset + round_up(bytes, 4));
}

void UniformArena::flush() {
  for (Block& b : blocks_) {
    if (b.dirty_end <= b.dirty_begin) continue;
    b.buffer.write(b.dirty_begin, b.host.data() + b.dirty_begin, b.dirty_end - b.dirty_begin);
    b.dirty_begin = ~uint64_t{0};
    b.dirty_end = 0;
    ++flushes_;
  }
}

uint64_t UniformArena::allocated_bytes() const {
  uint64_t total = 0;
  for (const Block& b : blocks_) total += b.buffer.size();
  return total;
}

}  // namespace wgrt
