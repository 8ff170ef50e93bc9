// The runtime's device allocators, at most one per device type: which
// allocator backs a program's outputs on a device (seed 001). The memory and
// the allocators themselves are gpu/device_memory.h.
#pragma once

#include <memory>
#include <vector>

#include "gpu/device_memory.h"

namespace wgrt {

// At most one allocator per device type. Owned by a Runtime (or a test), so
// registrations never leak from one owner to another.
class DeviceAllocatorRegistry {
 public:
  DeviceAllocatorRegistry() = default;
  DeviceAllocatorRegistry(const DeviceAllocatorRegistry&) = delete;
  DeviceAllocatorRegistry& operator=(const DeviceAllocatorRegistry&) = delete;
  DeviceAllocatorRegistry(DeviceAllocatorRegistry&&) = default;
  DeviceAllocatorRegistry& operator=(DeviceAllocatorRegistry&&) = default;

  // Error(InvalidArgument) if the type already has one: two allocators for one
  // device would make "which one backs this output" a matter of luck.
  void add(std::unique_ptr<DeviceAllocator> allocator);
  bool has(DeviceType type) const;
  // Error(NotFound) naming the type and the registered ones.
  DeviceAllocator& get(DeviceType type) const;

 private:
  std::vector<std::unique_ptr<DeviceAllocator>> allocators_;
};

}  // namespace wgrt
