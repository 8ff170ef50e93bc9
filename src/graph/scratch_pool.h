// Scratch buffers that live for one op's dispatches (seed 002). Dispatches
// run in op order, so a later op may reuse an earlier op's scratch: acquire
// takes the best-fitting free slot whose size is in [n, 2n] (the 2x bound
// keeps a small request from pinning a huge slot), else creates one. A Guard
// returns its slot when the op's lowering ends; a slot in use is never handed
// out twice. With pooling off (WGRT_NO_SCRATCH_POOL=1) every request gets a
// new slot, for A/B comparison.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "gpu/buffer.h"

namespace wgrt {

namespace gpu {
class Device;
}

class ScratchPool {
 public:
  struct Slot {
    gpu::Buffer buffer;
    bool in_use = false;
  };

  class Guard {
   public:
    explicit Guard(Slot* slot) : slot_(slot) {}
    ~Guard();
    Guard(Guard&& other) noexcept;
    Guard& operator=(Guard&&) = delete;
    Guard(const Guard&) = delete;
    const gpu::Buffer& buffer() const { return slot_->buffer; }

   private:
    Slot* slot_;
  };

  ScratchPool(gpu::Device& device, bool pooling);

  Guard acquire(uint64_t bytes, std::string_view label);

  bool pooling() const { return pooling_; }
  size_t slot_count() const { return slots_.size(); }
  uint64_t bytes() const;

 private:
  gpu::Device& device_;
  bool pooling_;
  std::vector<std::unique_ptr<Slot>> slots_;  // stable addresses for guards
};

}  // namespace wgrt
