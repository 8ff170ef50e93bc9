#include "gpu_test_env.h"

#include <cstdlib>
#include <memory>
#include <string>

#include "wgrt/error.h"

namespace wgrt::test {
namespace {
std::string g_reason;
// Tests compare with f32 references at f32 tolerances, so prefill GEMMs run
// in f32 here unless WGRT_MATMUL says otherwise; the f16 variants are tested
// through an explicit LoadOptions::matmul_precision (test_quant_linear.cpp).
// Likewise the GEMM family runs at every size here (not only from 128
// workgroups up), so small test shapes exercise it.
const bool g_f32_gemms = [] {
  return setenv("WGRT_MATMUL", "f32", 0) == 0 && setenv("WGRT_GEMM_MIN_WORKGROUPS", "0", 0) == 0;
}();
}

bool gpu_required() {
  auto truthy = [](const char* v) {
    return v != nullptr && *v != '\0' && std::string(v) != "0" && std::string(v) != "false";
  };
  return truthy(std::getenv("CI")) || truthy(std::getenv("WGRT_REQUIRE_GPU"));
}

gpu::DeviceOptions device_options_from_env() {
  gpu::DeviceOptions o;
  if (const char* v = std::getenv("WGRT_LIMITS"); v != nullptr && *v != 0) {
    o.limits = gpu::parse_limits_mode(v, "WGRT_LIMITS");
  }
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
