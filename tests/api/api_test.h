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
    runtime_.emplace(api::Runtime::create());
  }
  std::optional<api::Runtime> runtime_;
};

}  // namespace wgrt::test
