// Device tensors, Method::execute and DLPack in the public API
// (wgrt/device_tensor.h, wgrt/dlpack.h), as a program outside wgrt uses
// them: device outputs are buffers of their own that go back in without a
// host copy, uploads round-trip (i64 through its i32 device layout), and
// DLPack exports and imports keep shape, dtype, strides and ownership right.
// The graph is testing::add_chain: output k = x + k * y.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>

#include "api/api_test.h"
#include "gpu_test_env.h"
#include "wgrt/error.h"
#include "wgrt/testing.h"
#include "wgrt/wgrt.h"

namespace wgrt {
namespace {

template <typename Fn>
Error error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a wgrt::Error";
  return Error(ErrorCode::Internal, "none thrown");
}

template <typename T>
api::Tensor tensor_of(DType dtype, std::vector<int64_t> shape, const std::vector<T>& values) {
  const auto* p = reinterpret_cast<const uint8_t*>(values.data());
  return api::Tensor(dtype, std::move(shape), std::span<const uint8_t>(p, values.size() * sizeof(T)));
}

std::vector<float> ramp(size_t n, float start, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + step * float(i);
  return v;
}

class DeviceTensorTest : public test::ApiTest {};

TEST_F(DeviceTensorTest, UploadRoundTripsAndReportsItsBuffer) {
  const api::Tensor f = tensor_of<float>(DType::F32, {2, 3}, ramp(6, -1.5f, 0.75f));
  const uint64_t live = runtime_->live_buffer_bytes();
  {
    const api::DeviceTensor d = api::DeviceTensor::upload(*runtime_, f);
    EXPECT_EQ(d.shape(), f.shape());
    EXPECT_EQ(d.nbytes(), 24u);
    EXPECT_EQ(d.buffer_bytes(), 24u);
    EXPECT_EQ(d.device(), "webgpu");
    EXPECT_NE(d.webgpu_buffer(), nullptr);
    const std::vector<std::string> usage = d.buffer_usage();
    EXPECT_NE(std::find(usage.begin(), usage.end(), "Storage"), usage.end());
    EXPECT_EQ(runtime_->live_buffer_bytes() - live, 24u);
    const api::Tensor back = d.to_host();
    EXPECT_TRUE(std::equal(back.bytes().begin(), back.bytes().end(), f.bytes().begin(), f.bytes().end()));
    // Copies share the buffer.
    const api::DeviceTensor copy = d;
    EXPECT_EQ(copy.webgpu_buffer(), d.webgpu_buffer());
  }
  EXPECT_EQ(runtime_->live_buffer_bytes(), live);  // freed with the last handle

  // i64 lives as i32 on the GPU: 3 elements are 12 bytes, rounded up to 12.
  const api::Tensor i = tensor_of<int64_t>(DType::I64, {3}, {-7, 0, 123456});
  const api::DeviceTensor di = api::DeviceTensor::upload(*runtime_, i);
  EXPECT_EQ(di.nbytes(), 12u);
  const api::Tensor ib = di.to_host();
  EXPECT_EQ(std::vector<int64_t>(ib.values<int64_t>().begin(), ib.values<int64_t>().end()),
            (std::vector<int64_t>{-7, 0, 123456}));
  // An i64 outside i32 cannot live on the GPU.
  const api::Tensor big = tensor_of<int64_t>(DType::I64, {1}, {int64_t(1) << 40});
  EXPECT_EQ(error_of([&] { api::DeviceTensor::upload(*runtime_, big); }).code(), ErrorCode::InvalidArgument);

  // No elements: no buffer.
  const api::DeviceTensor empty = api::DeviceTensor::upload(*runtime_, api::Tensor(DType::F32, {0, 4}));
  EXPECT_EQ(empty.webgpu_buffer(), nullptr);
  EXPECT_EQ(empty.buffer_bytes(), 0u);
  EXPECT_EQ(empty.to_host().shape(), (std::vector<int64_t>{0, 4}));
}

TEST_F(DeviceTensorTest, ExecuteHandsOutputsOverAndBindsDeviceInputsWithoutACopy) {
  api::Program program = api::testing::add_chain(*runtime_, 2, 8, 4);
  api::Method m = program.method("add_chain");
  ASSERT_EQ(m.inputs().size(), 2u);
  EXPECT_FALSE(m.inputs()[0].symbolic_int);
  const std::vector<float> xs = ramp(32, 0.5f, 0.25f), ys = ramp(32, -2.0f, 0.125f);
  const api::Tensor x = tensor_of<float>(DType::F32, {8, 4}, xs), y = tensor_of<float>(DType::F32, {8, 4}, ys);

  api::RunOptions device_out;
  device_out.device_outputs = {true, false};
  std::vector<api::Output> outs = m.execute(std::vector<api::Input>{x, y}, device_out);
  ASSERT_EQ(outs.size(), 2u);
  ASSERT_TRUE(outs[0].on_device);
  ASSERT_FALSE(outs[1].on_device);
  const std::vector<api::testing::OutputStorage> storage = api::testing::output_storage(m);
  EXPECT_NE(outs[0].device.webgpu_buffer(), storage[0].buffer);  // its own buffer, not the method's
  const api::Tensor first = outs[0].device.to_host();
  for (size_t i = 0; i < 32; ++i) {
    EXPECT_EQ(first.values<float>()[i], xs[i] + ys[i]);
    EXPECT_EQ(outs[1].host.values<float>()[i], (xs[i] + ys[i]) + ys[i]);
  }

  // The device output as x again: bound, not uploaded.
  const api::DeviceTensor again = outs[0].device;
  std::vector<api::Output> next = m.execute(std::vector<api::Input>{again, y});
  const api::testing::Traffic t = api::testing::last_traffic(m);
  EXPECT_EQ(t.bound_input_buffers.at(0), again.webgpu_buffer());
  EXPECT_EQ(t.bound_input_buffers.at(1), nullptr);
  EXPECT_EQ(t.host_upload_bytes, 32u * 4);  // y only
  for (size_t i = 0; i < 32; ++i) EXPECT_EQ(next[0].host.values<float>()[i], (xs[i] + ys[i]) + ys[i]);

  // Wrong count of device_outputs flags: refused, and the method still runs.
  api::RunOptions bad;
  bad.device_outputs = {true};
  EXPECT_EQ(error_of([&] { m.execute(std::vector<api::Input>{x, y}, bad); }).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(m.execute(std::vector<api::Input>{x, y}).size(), 2u);

  // A device tensor of another runtime's device is refused by name.
  const api::Runtime other = api::Runtime::create();
  const api::DeviceTensor foreign = api::DeviceTensor::upload(other, x);
  const Error e = error_of([&] { m.execute(std::vector<api::Input>{foreign, y}); });
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(e.what()).find("input 0"), std::string::npos) << e.what();
}

TEST_F(DeviceTensorTest, ADeviceOutputThatCannotBeAllocatedLeavesNothingRun) {
  api::Program program = api::testing::add_chain(*runtime_, 3, 8, 4);
  api::Method m = program.method("add_chain");
  const api::Tensor x = tensor_of<float>(DType::F32, {8, 4}, ramp(32, 0, 1)), y = x;
  const uint64_t live = runtime_->live_buffer_bytes();
  api::RunOptions all;
  all.device_outputs = {true, true, true};
  api::testing::fail_nth_allocation(*runtime_, 2);  // the second device output
  EXPECT_EQ(error_of([&] { m.execute(std::vector<api::Input>{x, y}, all); }).code(), ErrorCode::OutOfMemory);
  EXPECT_EQ(runtime_->live_buffer_bytes(), live);
  api::testing::fail_nth_allocation(*runtime_, 0);
  EXPECT_EQ(m.execute(std::vector<api::Input>{x, y}, all).size(), 3u);
}

TEST(DlpackTest, HostExportSharesTheBytesAndImportCopiesAnyStrides) {
  // Export: the bytes move into the DLPack tensor.
  api::Tensor t = tensor_of<float>(DType::F32, {2, 3}, ramp(6, 1, 1));
  const void* bytes = t.bytes().data();
  api::dlpack::ManagedTensor* m = api::to_dlpack(std::move(t));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->dl_tensor.data, bytes);
  EXPECT_EQ(m->dl_tensor.device.device_type, api::dlpack::kCPU);
  EXPECT_EQ(m->dl_tensor.ndim, 2);
  EXPECT_EQ(m->dl_tensor.shape[0], 2);
  EXPECT_EQ(m->dl_tensor.shape[1], 3);
  EXPECT_EQ(m->dl_tensor.strides, nullptr);
  EXPECT_EQ(m->dl_tensor.dtype.code, api::dlpack::kFloat);
  EXPECT_EQ(m->dl_tensor.dtype.bits, 32);

  // Import of the same, then of its transpose through strides.
  const api::Tensor same = api::tensor_from_dlpack(m->dl_tensor);
  EXPECT_EQ(same.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(same.values<float>()[5], 6.0f);
  int64_t shape_t[2] = {3, 2}, strides_t[2] = {1, 3};
  api::dlpack::Tensor transposed = m->dl_tensor;
  transposed.shape = shape_t;
  transposed.strides = strides_t;
  const api::Tensor tt = api::tensor_from_dlpack(transposed);
  const std::vector<float> want = {1, 4, 2, 5, 3, 6};
  EXPECT_EQ(std::vector<float>(tt.values<float>().begin(), tt.values<float>().end()), want);
  // A byte offset: the second row.
  api::dlpack::Tensor row = m->dl_tensor;
  int64_t shape_r[1] = {3};
  row.ndim = 1;
  row.shape = shape_r;
  row.byte_offset = 12;
  EXPECT_EQ(api::tensor_from_dlpack(row).values<float>()[0], 4.0f);

  // Refusals name what is wrong.
  api::dlpack::Tensor wide = m->dl_tensor;
  wide.dtype = {api::dlpack::kFloat, 64, 1};
  const Error e = error_of([&] { api::tensor_from_dlpack(wide); });
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(e.what()).find("64 bits"), std::string::npos) << e.what();
  api::dlpack::Tensor cuda = m->dl_tensor;
  cuda.device.device_type = 2;
  EXPECT_EQ(error_of([&] { api::tensor_from_dlpack(cuda); }).code(), ErrorCode::InvalidArgument);
  m->deleter(m);

  for (DType d : {DType::F32, DType::F16, DType::I32, DType::I64, DType::U8, DType::I8, DType::Bool}) {
    EXPECT_EQ(api::dlpack::dtype(api::dlpack::data_type(d)), d);
  }
}

TEST_F(DeviceTensorTest, DeviceExportIsTheBufferAndComesBackAsTheSameTensor) {
  const api::Tensor i = tensor_of<int64_t>(DType::I64, {2, 2}, {1, -2, 3, -4});
  const api::DeviceTensor d = api::DeviceTensor::upload(*runtime_, i);
  api::dlpack::ManagedTensor* m = api::to_dlpack(d);
  EXPECT_EQ(m->dl_tensor.device.device_type, api::dlpack::kWebGPU);
  EXPECT_EQ(m->dl_tensor.data, d.webgpu_buffer());
  EXPECT_EQ(m->dl_tensor.dtype.bits, 32);  // what the buffer holds
  const api::DeviceTensor back = api::device_tensor_from_dlpack(*runtime_, *m);
  EXPECT_EQ(back.webgpu_buffer(), d.webgpu_buffer());
  EXPECT_EQ(back.dtype(), DType::I64);
  const uint64_t live = runtime_->live_buffer_bytes();
  m->deleter(m);  // the handles still hold the buffer
  EXPECT_EQ(runtime_->live_buffer_bytes(), live);
  EXPECT_EQ(back.to_host().values<int64_t>()[3], -4);

  // A WebGPU tensor wgrt did not make: refused.
  api::dlpack::ManagedTensor foreign;
  foreign.dl_tensor.device.device_type = api::dlpack::kWebGPU;
  foreign.dl_tensor.data = d.webgpu_buffer();
  EXPECT_EQ(error_of([&] { api::device_tensor_from_dlpack(*runtime_, foreign); }).code(), ErrorCode::NotSupported);

  // A CPU tensor is uploaded.
  api::dlpack::ManagedTensor* host = api::to_dlpack(tensor_of<float>(DType::F32, {3}, {1.5f, 2.5f, 3.5f}));
  const api::DeviceTensor up = api::device_tensor_from_dlpack(*runtime_, *host);
  host->deleter(host);
  EXPECT_EQ(up.to_host().values<float>()[2], 3.5f);
}

}  // namespace
}  // namespace wgrt
