// A Runtime owns one WebGPU device and the registry of device allocators that
// hand out memory on it. Everything loaded through a Runtime uses its device;
// each loaded program still owns its own memory and reports its own stats.
#pragma once

#include <memory>

#include "gpu/device.h"
#include "runtime/device_memory.h"

namespace wgrt {

class Runtime {
 public:
  // Creates the device (Error(NotFound) without an adapter) and registers its
  // WebGPU allocator. No CPU allocator is registered: callers that want one
  // add it.
  static std::unique_ptr<Runtime> create(const gpu::DeviceOptions& options = {});
  // The process's shared runtime, created on first use with default options
  // and never destroyed (nothing alive at exit can reach a freed device).
  // wgrt's Python module and its ExecuTorch backend both use it, so a
  // process holds one device whichever way programs are loaded. Throws like
  // create() and tries again on the next call. The first call's options
  // make the device; a later call asking for another limits mode or split
  // size is Error(InvalidArgument).
  static Runtime& process_default(const gpu::DeviceOptions& options = {});

  gpu::Device& device() { return *device_; }
  // What the device was created with: more devices like it (a model split
  // across adapters) take the same limits and features.
  const gpu::DeviceOptions& device_options() const { return options_; }
  DeviceAllocatorRegistry& allocators() { return allocators_; }
  const DeviceAllocatorRegistry& allocators() const { return allocators_; }

 private:
  Runtime() = default;
  gpu::DeviceOptions options_;

  // Declared first so it is destroyed last: allocators refer to it.
  std::unique_ptr<gpu::Device> device_;
  DeviceAllocatorRegistry allocators_;
};

}  // namespace wgrt
