#include "graph/scratch_pool.h"

#include <cstdlib>
#include <string>
#include <utility>

#include "gpu/device.h"

namespace wgrt {

ScratchPool::Guard::~Guard() {
  if (slot_ != nullptr) slot_->in_use = false;
}

ScratchPool::Guard::Guard(Guard&& other) noexcept
    : slot_(std::exchange(other.slot_, nullptr)) {}

ScratchPool::ScratchPool(gpu::Device& device, bool pooling) : device_(device), pooling_(pooling) {}

ScratchPool::Guard ScratchPool::acquire(uint64_t bytes, std::string_view label) {
  const uint64_t need = std::max<uint64_t>(4, (bytes + 3) & ~uint64_t{3});
  Slot* best = nullptr;
  if (pooling_) {
    for (auto& slot : slots_) {
      const uint64_t size = slot->buffer.size();
      if (slot->in_use || size < need || size > 2 * need) continue;
      if (best == nullptr || size < best->buffer.size()) best = slot.get();
    }
  }
  if (best == nullptr) {
    auto slot = std::make_unique<Slot>();
    slot->buffer = gpu::Buffer::create(device_, need, gpu::BufferKind::Storage,
                                       "scratch " + std::to_string(slots_.size()) + " (" + std::string(label) + ")");
    best = slot.get();
    slots_.push_back(std::move(slot));
  }
  best->in_use = true;
  return Guard(best);
}

uint64_t ScratchPool::bytes() const {
  uint64_t total = 0;
  for (const auto& s : slots_) total += s->buffer.size();
  return total;
}

}  // namespace wgrt
