// Device-resident inputs and outputs of ExecutableGraph::run (seed 001):
// a caller's buffer bound in an input's place for one call, outputs handed
// over as new buffers, and all-or-nothing output allocation.
#include <gtest/gtest.h>

#include "gpu_test_env.h"
#include "graph/executable_graph.h"
#include "host_tensors.h"
#include "runtime/device_memory.h"
#include "wgrt/error.h"

namespace wgrt {
namespace {

constexpr int64_t kRows = 8, kCols = 4;

// x, y: f32 [<= 8, 4]; outputs a = x + y, b = a + y.
std::unique_ptr<ExecutableGraph> two_adds(gpu::Device& device) {
  GraphBuilder b;
  const ValueId x = b.add_tensor(DType::F32, {kRows, kCols});
  const ValueId y = b.add_tensor(DType::F32, {kRows, kCols});
  b.mark_input(x);
  b.mark_input(y);
  const ValueId a = b.add_tensor(DType::F32, {kRows, kCols});
  const ValueId o = b.add_tensor(DType::F32, {kRows, kCols});
  b.add_op("aten.add.Tensor", {x, y, b.add_int(1), a});
  b.add_op("aten.add.Tensor", {a, y, b.add_int(1), o});
  b.mark_output(a);
  b.mark_output(o);
  return ExecutableGraph::load(device, std::move(b).build(), test::load_options());
}

std::vector<float> read_floats(const DeviceMemoryBuffer& m, int64_t n) {
  return test::as_vector<float>(m.gpu_buffer().read(0, uint64_t(n) * 4));
}

class DeviceIoTest : public test::GpuTest {};

TEST_F(DeviceIoTest, DeviceOutputsAreNewBuffersAndFeedBackWithoutUpload) {
  auto g = two_adds(device());
  WebGpuAllocator alloc(device());
  const auto x = test::random_floats(kRows * kCols, 1), y = test::random_floats(kRows * kCols, 2);
  const InputView in[] = {test::f32_view(x, {kRows, kCols}), test::f32_view(y, {kRows, kCols})};
  ExecuteOptions opt;
  opt.device_outputs = {true, true};
  opt.allocator = &alloc;
  std::vector<OutputTensor> out = g->run(in, opt);
  ASSERT_TRUE(out[0].on_device && out[0].memory);
  EXPECT_NE(out[0].memory.gpu_buffer().raw(), g->tensor_buffer(g->graph().outputs[0]).raw());
  EXPECT_TRUE(out[0].data.empty());

  // out[0] (= x + y) as x: the graph reads it in place.
  const InputView again[] = {DeviceTensorView{DType::F32, {kRows, kCols}, &out[0].memory.gpu_buffer()},
                             test::f32_view(y, {kRows, kCols})};
  const std::vector<OutputTensor> r = g->run(again);
  EXPECT_EQ(g->last_traffic().host_upload_bytes, y.size() * 4);
  EXPECT_EQ(g->last_traffic().bound_input_buffers[0], out[0].memory.gpu_buffer().raw());
  EXPECT_EQ(g->last_traffic().rebound_dispatches, 1u);  // only the first add reads x
  const auto got = test::as_vector<float>(r[0].data);
  const auto first = read_floats(out[0].memory, kRows * kCols);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], first[i] + y[i]);
}

TEST_F(DeviceIoTest, FreedDeviceInputIsNotBoundByTheNextCall) {
  auto g = two_adds(device());
  const auto x = test::random_floats(kRows * kCols, 3), y = test::random_floats(kRows * kCols, 4);
  {
    gpu::Buffer ext = gpu::Buffer::create(device(), x.size() * 4, gpu::BufferKind::Storage, "caller's x");
    ext.write(0, x.data(), x.size() * 4);
    const InputView in[] = {DeviceTensorView{DType::F32, {kRows, kCols}, &ext}, test::f32_view(y, {kRows, kCols})};
    g->run(in);
  }  // destroyed: submitting it again would abort inside wgpu-native
  const HostTensorView in[] = {test::f32_view(x, {kRows, kCols}), test::f32_view(y, {kRows, kCols})};
  const auto got = test::floats(g->execute(in)[0]);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], x[i] + y[i]);
}

TEST_F(DeviceIoTest, BadDeviceInputsAreRefusedNamingTheInput) {
  auto g = two_adds(device());
  const auto y = test::random_floats(kRows * kCols, 5);
  gpu::Buffer small = gpu::Buffer::create(device(), 16, gpu::BufferKind::Storage, "small");
  gpu::Buffer uniform = gpu::Buffer::create(device(), 128, gpu::BufferKind::Uniform, "uniform");
  auto expect_error = [&](const gpu::Buffer* b, Dims dims, const std::string& what) {
    const InputView in[] = {DeviceTensorView{DType::F32, dims, b}, test::f32_view(y, {kRows, kCols})};
    try {
      g->run(in);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("input 0"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_error(&small, {kRows, kCols}, "needs 128 bytes on the device, its buffer has 16");
  expect_error(&uniform, {kRows, kCols}, "not a storage buffer");
  expect_error(nullptr, {kRows, kCols}, "no buffer");
  expect_error(&small, {kRows + 1, kCols}, "exceeds the maximum");
}

TEST_F(DeviceIoTest, FailedOutputAllocationLeavesTheGraphAsItWas) {
  auto g = two_adds(device());
  WebGpuAllocator alloc(device());
  const auto x = test::random_floats(kRows * kCols, 6), y = test::random_floats(kRows * kCols, 7);
  const HostTensorView full[] = {test::f32_view(x, {kRows, kCols}), test::f32_view(y, {kRows, kCols})};
  g->execute(full);
  const uint64_t base = device().live_buffer_bytes();

  const std::vector<float> x3(x.begin(), x.begin() + 12), y3(y.begin(), y.begin() + 12);
  const InputView three[] = {test::f32_view(x3, {3, kCols}), test::f32_view(y3, {3, kCols})};
  ExecuteOptions opt;
  opt.device_outputs = {true, true};
  opt.allocator = &alloc;
  device().fail_nth_allocation_for_test(2);
  EXPECT_THROW(g->run(three, opt), Error);
  device().fail_nth_allocation_for_test(0);
  EXPECT_EQ(device().live_buffer_bytes(), base);
  for (ValueId id : g->graph().outputs) EXPECT_EQ(g->graph().tensor(id).cur_dims, (Dims{kRows, kCols}));

  std::vector<OutputTensor> out = g->run(three, opt);
  EXPECT_EQ(out[1].dims, (Dims{3, kCols}));
  const auto got = read_floats(out[1].memory, 12);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], (x[i] + y[i]) + y[i]);
}

TEST_F(DeviceIoTest, ZeroByteDeviceOutputsAllocateNothing) {
  auto g = two_adds(device());
  WebGpuAllocator alloc(device());
  const std::vector<float> none;
  const InputView in[] = {test::f32_view(none, {0, kCols}), test::f32_view(none, {0, kCols})};
  ExecuteOptions opt;
  opt.device_outputs = {true, false};
  opt.allocator = &alloc;
  const uint64_t base = device().live_buffer_bytes();
  std::vector<OutputTensor> out = g->run(in, opt);
  EXPECT_EQ(device().live_buffer_bytes(), base);
  EXPECT_TRUE(out[0].on_device);
  EXPECT_FALSE(out[0].memory);
  EXPECT_TRUE(out[0].data.empty() && out[1].data.empty());
  EXPECT_EQ(out[0].dims, (Dims{0, kCols}));
}

TEST_F(DeviceIoTest, DeviceOutputsNeedAWebGpuAllocator) {
  auto g = two_adds(device());
  CpuAllocator cpu;
  const auto x = test::random_floats(kRows * kCols, 8);
  const InputView in[] = {test::f32_view(x, {kRows, kCols}), test::f32_view(x, {kRows, kCols})};
  ExecuteOptions opt;
  opt.device_outputs = {true, false};
  EXPECT_THROW(g->run(in, opt), Error);
  opt.allocator = &cpu;
  EXPECT_THROW(g->run(in, opt), Error);
}

}  // namespace
}  // namespace wgrt
