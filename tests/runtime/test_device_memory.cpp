// The device allocator registry and the Runtime that owns one (seed 001).
#include <gtest/gtest.h>

#include <functional>

#include "gpu_test_env.h"
#include "runtime/device_memory.h"
#include "runtime/runtime.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

ErrorCode code_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "no error";
  return ErrorCode::Internal;
}

TEST(DeviceAllocatorRegistry, OnePerDeviceTypeAndNotFoundOtherwise) {
  DeviceAllocatorRegistry r;
  EXPECT_EQ(code_of([&] { r.get(DeviceType::CPU); }), ErrorCode::NotFound);
  r.add(std::make_unique<CpuAllocator>());
  EXPECT_EQ(code_of([&] { r.add(std::make_unique<CpuAllocator>()); }), ErrorCode::InvalidArgument);
  EXPECT_TRUE(r.has(DeviceType::CPU));
  EXPECT_FALSE(r.has(DeviceType::WebGPU));
  try {
    r.get(DeviceType::WebGPU);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "no allocator is registered for device type 'webgpu' (registered: cpu)");
  }
  DeviceMemoryBuffer m = r.get(DeviceType::CPU).allocate(10, "x");
  EXPECT_EQ(m.device_type(), DeviceType::CPU);
  EXPECT_EQ(m.size(), 10u);
  EXPECT_EQ(code_of([&] { m.gpu_buffer(); }), ErrorCode::InvalidArgument);
  DeviceMemoryBuffer moved = std::move(m);
  EXPECT_FALSE(m);  // NOLINT(bugprone-use-after-move): moved-from buffers are empty
  EXPECT_TRUE(moved);
}

class RuntimeTest : public test::GpuTest {};

TEST_F(RuntimeTest, WebGpuAllocationsAreStorageBuffersOnTheDevice) {
  WebGpuAllocator alloc(device());
  const uint64_t base = device().live_buffer_bytes();
  {
    DeviceMemoryBuffer m = alloc.allocate(10, "x");
    EXPECT_EQ(m.device_type(), DeviceType::WebGPU);
    EXPECT_EQ(m.size(), 12u);
    EXPECT_EQ(m.gpu_buffer().kind(), gpu::BufferKind::Storage);
    EXPECT_NE(m.usage(), 0u);
    EXPECT_EQ(device().live_buffer_bytes(), base + 12);
  }
  EXPECT_EQ(device().live_buffer_bytes(), base);
}

TEST_F(RuntimeTest, RegistersItsWebGpuAllocatorOnce) {
  auto rt = Runtime::create();
  EXPECT_TRUE(rt->allocators().has(DeviceType::WebGPU));
  EXPECT_FALSE(rt->allocators().has(DeviceType::CPU));
  EXPECT_EQ(code_of([&] { rt->allocators().add(std::make_unique<WebGpuAllocator>(rt->device())); }),
            ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace wgrt
