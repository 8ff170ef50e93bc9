#include "runtime/device_memory.h"

#include "wgrt/error.h"

namespace wgrt {

void DeviceAllocatorRegistry::add(std::unique_ptr<DeviceAllocator> allocator) {
  if (!allocator) throw Error(ErrorCode::InvalidArgument, "registering a null device allocator");
  const DeviceType type = allocator->device_type();
  if (has(type)) {
    throw Error(ErrorCode::InvalidArgument, "an allocator for device type '" + std::string(device_type_name(type)) +
                                                "' is already registered");
  }
  allocators_.push_back(std::move(allocator));
}

bool DeviceAllocatorRegistry::has(DeviceType type) const {
  for (const auto& a : allocators_) {
    if (a->device_type() == type) return true;
  }
  return false;
}

DeviceAllocator& DeviceAllocatorRegistry::get(DeviceType type) const {
  for (const auto& a : allocators_) {
    if (a->device_type() == type) return *a;
  }
  std::string known;
  for (const auto& a : allocators_) known += (known.empty() ? "" : ", ") + std::string(device_type_name(a->device_type()));
  throw Error(ErrorCode::NotFound, "no allocator is registered for device type '" +
                                       std::string(device_type_name(type)) + "' (registered: " +
                                       (known.empty() ? "none" : known) + ")");
}

}  // namespace wgrt
