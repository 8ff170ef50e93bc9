#include "runtime/runtime.h"

#include <string>

#include "wgrt/error.h"

namespace wgrt {

std::unique_ptr<Runtime> Runtime::create(const gpu::DeviceOptions& options) {
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->options_ = options;
  rt->device_ = gpu::Device::create(options);
  rt->allocators_.add(std::make_unique<WebGpuAllocator>(*rt->device_));
  return rt;
}

Runtime& Runtime::process_default(const gpu::DeviceOptions& options) {
  static Runtime* runtime = create(options).release();
  const gpu::DeviceOptions& made = runtime->options_;
  if (made.limits != options.limits || made.split_bytes_for_test != options.split_bytes_for_test) {
    throw Error(ErrorCode::InvalidArgument,
                std::string("the process's runtime already exists with limits ") + gpu::limits_mode_name(made.limits) +
                    (made.split_bytes_for_test ? " (split at " + std::to_string(made.split_bytes_for_test) + " bytes)" : "") +
                    "; it cannot be made again with limits " + gpu::limits_mode_name(options.limits) +
                    (options.split_bytes_for_test ? " (split at " + std::to_string(options.split_bytes_for_test) + " bytes)" : ""));
  }
  return *runtime;
}

}  // namespace wgrt
