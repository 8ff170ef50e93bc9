// The fixture of the public-API tests: the shared GPU test device, plus an
// api::Runtime created once it is known to be usable.
#pragma once

#include <optional>

#include "gpu_test_env.h"
#include "wgrt/wgrt.h"

namespace wgrt::test {

class ApiTest : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    runtime_.emplace(api::Runtime::create(runtime_options_from_env()));
  }
  // The harness's WGRT_LIMITS, as for the shared test device.
  static api::RuntimeOptions runtime_options_from_env() {
    api::RuntimeOptions o;
    if (device_options_from_env().limits == gpu::LimitsMode::Default) o.limits = api::LimitsMode::Default;
    return o;
  }
  std::optional<api::Runtime> runtime_;
};

}  // namespace wgrt::test
