#include "runtime/runtime.h"

namespace wgrt {

std::unique_ptr<Runtime> Runtime::create(const gpu::DeviceOptions& options) {
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->device_ = gpu::Device::create(options);
  rt->allocators_.add(std::make_unique<WebGpuAllocator>(*rt->device_));
  return rt;
}

Runtime& Runtime::process_default() {
  static Runtime* runtime = create().release();
  return *runtime;
}

}  // namespace wgrt
