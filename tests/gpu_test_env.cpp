#include "gpu_test_env.h"

#include <cstdlib>
#include <memory>
#include <string>

#include "cli/environment.h"
#include "wgrt/error.h"

namespace wgrt::test {
namespace {
std::string g_reason;
}

Tuning tuning() {
  Tuning t;
  t.matmul_precision = MatmulPrecision::F32;
  return tuning_from_environment(t);
}

LoadOptions load_options() {
  LoadOptions o;
  o.tuning = tuning();
  return o;
}

bool gpu_required() {
  auto truthy = [](const char* v) {
    return v != nullptr && *v != '\0' && std::string(v) != "0" && std::string(v) != "false";
  };
  return truthy(std::getenv("CI")) || truthy(std::getenv("WGRT_REQUIRE_GPU"));
}

gpu::DeviceOptions device_options_from_env() {
  gpu::DeviceOptions o;
  o.limits = static_cast<gpu::LimitsMode>(api::runtime_options_from_environment().limits);
  return o;
}

gpu::Device* shared_device() {
  static std::unique_ptr<gpu::Device> device = [] {
    try {
      return gpu::Device::create(device_options_from_env());
    } catch (const Error& e) {
      g_reason = e.what();
      return std::unique_ptr<gpu::Device>();
    }
  }();
  return device.get();
}

const char* no_device_reason() { return g_reason.c_str(); }

}  // namespace wgrt::test
