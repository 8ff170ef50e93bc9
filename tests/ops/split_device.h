// A second device whose split size is forced low (DeviceOptions::
// split_bytes_for_test), so that small constants are stored in runs of rows
// (graph/memory_plan.h) as ones above the binding limit are: tests compare
// a graph on it with the same graph on the shared device.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "wgrt/error.h"

namespace wgrt::test {

// 16 KiB: weights of a few tens of KB come in several runs.
inline constexpr uint64_t kSplitBytes = 16384;

// Created on first use, for the whole process; null when it cannot be.
inline gpu::Device* split_device() {
  static std::unique_ptr<gpu::Device> device = [] {
    gpu::DeviceOptions o = device_options_from_env();
    o.split_bytes_for_test = kSplitBytes;
    try {
      return gpu::Device::create(o);
    } catch (const Error&) {
      return std::unique_ptr<gpu::Device>();
    }
  }();
  return device.get();
}

// The shared device (device()) and split_device(), both present.
class SplitDeviceTest : public GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (HasFatalFailure() || IsSkipped()) return;
    ASSERT_NE(split_device(), nullptr);
    ASSERT_EQ(split_device()->split_bytes(), kSplitBytes);
  }
};

// Loading `graph` on split_device() fails with Error(NotSupported) whose
// message holds every one of `parts`, and leaves nothing allocated.
inline void expect_split_load_refused(Graph graph, std::initializer_list<const char*> parts) {
  ASSERT_NE(split_device(), nullptr);
  const uint64_t live_before = split_device()->live_buffer_bytes();
  try {
    ExecutableGraph::load(*split_device(), std::move(graph), load_options());
    ADD_FAILURE() << "expected Error(NotSupported)";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::NotSupported) << e.what();
    const std::string m = e.what();
    for (const char* part : parts) EXPECT_NE(m.find(part), std::string::npos) << "'" << part << "' missing from: " << m;
  }
  EXPECT_EQ(split_device()->live_buffer_bytes(), live_before);  // nothing left allocated
}

}  // namespace wgrt::test
