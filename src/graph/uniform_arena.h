// Every op's parameters (WGSL uniforms) in a few shared GPU blocks instead of
// one buffer each. Writes land in a host copy of each block and only bytes
// that changed are marked; flush() then sends each block's dirty range with
// one queue write. A decode step thus costs one or two queue writes however
// many dispatches its position moves, where it was one per uniform.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/pipeline_cache.h"

namespace wgrt {

namespace gpu {
class Device;
}

using UniformId = size_t;

class UniformArena {
 public:
  // A slot of at least `bytes` (rounded up to 16, WGSL's struct alignment),
  // at an offset the device can bind a uniform at.
  UniformId allocate(gpu::Device& device, size_t bytes);
  gpu::BufferBinding binding(UniformId u) const;

  // Copies into the host block; marks the bytes dirty only if they differ.
  // Throws Error(Internal) if `bytes` overruns the slot.
  void write(UniformId u, const void* data, size_t bytes);
  // Queues one write per block with dirty bytes; after it the GPU sees every
  // write so far (queue writes are ordered before later submits).
  void flush();

  uint64_t allocated_bytes() const;  // the blocks, as memory_stats reports them
  uint64_t flushes() const { return flushes_; }  // queue writes issued, for tests

 private:
  struct Block {
    gpu::Buffer buffer;
    std::vector<uint8_t> host;
    uint64_t used = 0;
    uint64_t dirty_begin = ~uint64_t{0};
    uint64_t dirty_end = 0;
  };
  struct Slot {
    size_t block = 0;
    uint64_t offset = 0;
    uint64_t bytes = 0;
  };

  std::deque<Block> blocks_;  // deque: bind groups keep pointers to the buffers
  std::vector<Slot> slots_;
  uint64_t flushes_ = 0;
};

}  // namespace wgrt
