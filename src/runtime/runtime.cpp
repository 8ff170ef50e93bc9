#include "runtime/runtime.h"

#include <string>
#include <vector>

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
  // A later caller naming an adapter gets it or an error, never another one
  // silently (the first call made the device; -1 is whichever it is).
  if (options.adapter >= 0 && options.adapter != made.adapter) {
    const std::vector<gpu::AdapterInfo> adapters = gpu::list_adapters();
    const gpu::AdapterInfo& have = runtime->device().adapter_info();
    const bool same = made.adapter < 0 && size_t(options.adapter) < adapters.size() &&
                      adapters[size_t(options.adapter)] == have;
    if (!same) {
      throw Error(ErrorCode::InvalidArgument, "the process's runtime already exists on adapter " +
                                                  (made.adapter < 0 ? std::string("(the preferred one) ")
                                                                    : std::to_string(made.adapter) + " ") +
                                                  have.name + "; it cannot be made again on adapter " +
                                                  std::to_string(options.adapter));
    }
  }
  return *runtime;
}

}  // namespace wgrt
