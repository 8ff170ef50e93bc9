// The shared WebGPU device for tests. Tests that need a GPU derive from
// GpuTest. Without an adapter they fail under CI (CI=true, or
// WGRT_REQUIRE_GPU=1) and skip, loudly, elsewhere.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "gpu/device.h"
#include "graph/executable_graph.h"
#include "wgrt/tuning.h"
#include "wgrt/error.h"

namespace wgrt::test {

// The test harness's device options: WGRT_LIMITS (adapter or default) maps
// onto DeviceOptions::limits, so the suite runs again under WebGPU's default
// limits (scripts/test_default_limits.sh).
gpu::DeviceOptions device_options_from_env();
// The tuning tests load with: prefill GEMMs in f32 (tests compare with f32
// references at f32 tolerances; the f16 GEMMs are tested against their own
// bound, test_quant_linear.cpp), then whatever the WGRT_* variables ask for
// (src/cli/environment.h), so a whole test run can be repeated with a switch.
Tuning tuning();
// LoadOptions with tuning().
LoadOptions load_options();
// The process-wide test device, created on first use; null when none exists.
gpu::Device* shared_device();
// Why shared_device() is null.
const char* no_device_reason();
bool gpu_required();

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    device_ = shared_device();
    if (device_ == nullptr) {
      if (gpu_required()) {
        FAIL() << "no GPU adapter, and CI requires one: " << no_device_reason();
      } else {
        GTEST_SKIP() << "SKIPPED: no GPU adapter (" << no_device_reason() << ")";
      }
    }
  }
  gpu::Device& device() { return *device_; }

 private:
  gpu::Device* device_ = nullptr;
};

// A device of its own without subgroups, for the workgroup-memory reductions
// (common/reduce_workgroup.wgsl) that such adapters get.
class NoSubgroupsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gpu::DeviceOptions o = device_options_from_env();
    o.want_subgroups = false;
    try {
      device_ = gpu::Device::create(o);
    } catch (const Error& e) {
      if (gpu_required()) {
        FAIL() << e.what();
      } else {
        GTEST_SKIP() << "SKIPPED: no GPU adapter: " << e.what();
      }
    }
    ASSERT_FALSE(device_->features().subgroups);
  }
  gpu::Device& device() { return *device_; }

 private:
  std::unique_ptr<gpu::Device> device_;
};

template <typename T>
std::vector<T> as_vector(const std::vector<uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));  // memcpy of null is UB
  return out;
}

}  // namespace wgrt::test
