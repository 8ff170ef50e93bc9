#include "gpu_test_env.h"

#include <cstdlib>
#include <memory>
#include <string>

#include "wgrt/error.h"

namespace wgrt::test {
namespace {
std::string g_reason;
}

bool gpu_required() {
  auto truthy = [](const char* v) {
    return v != nullptr && *v != '\0' && std::string(v) != "0" && std::string(v) != "false";
  };
  return truthy(std::getenv("CI")) || truthy(std::getenv("WGRT_REQUIRE_GPU"));
}

gpu::Device* shared_device() {
  static std::unique_ptr<gpu::Device> device = [] {
    try {
      return gpu::Device::create();
    } catch (const Error& e) {
      g_reason = e.what();
      return std::unique_ptr<gpu::Device>();
    }
  }();
  return device.get();
}

const char* no_device_reason() { return g_reason.c_str(); }

}  // namespace wgrt::test
