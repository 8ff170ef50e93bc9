#include "wgrt/dlpack.h"

#include <cstring>
#include <string>

#include "api/impl.h"
#include "core/dims.h"
#include "wgrt/error.h"

namespace wgrt::api {

namespace dlpack {

DataType data_type(DType dtype) {
  switch (dtype) {
    case DType::F32: return {kFloat, 32, 1};
    case DType::F16: return {kFloat, 16, 1};
    case DType::I32: return {kInt, 32, 1};
    case DType::I64: return {kInt, 64, 1};
    case DType::U8: return {kUInt, 8, 1};
    case DType::I8: return {kInt, 8, 1};
    case DType::Bool: return {kBool, 8, 1};
  }
  throw Error(ErrorCode::Internal, "dlpack::data_type: unknown dtype");
}

DType dtype(DataType t) {
  if (t.lanes == 1) {
    if (t.code == kFloat && t.bits == 32) return DType::F32;
    if (t.code == kFloat && t.bits == 16) return DType::F16;
    if (t.code == kInt && t.bits == 32) return DType::I32;
    if (t.code == kInt && t.bits == 64) return DType::I64;
    if (t.code == kInt && t.bits == 8) return DType::I8;
    if (t.code == kUInt && t.bits == 8) return DType::U8;
    if (t.code == kBool && t.bits == 8) return DType::Bool;
  }
  throw Error(ErrorCode::InvalidArgument,
              "unsupported array dtype (DLPack code " + std::to_string(t.code) + ", " + std::to_string(t.bits) +
                  " bits" + (t.lanes != 1 ? ", " + std::to_string(t.lanes) + " lanes" : std::string()) +
                  "); wgrt takes float32, float16, int64, int32, int8, uint8 and bool");
}

}  // namespace dlpack

namespace {

// What an exported DLPack tensor owns: its shape, and the bytes (a host
// tensor) or a handle to the buffer (a device tensor).
struct Export {
  dlpack::ManagedTensor managed;
  std::vector<int64_t> shape;
  Tensor host;
  DeviceTensor device;
};

void delete_export(dlpack::ManagedTensor* self) { delete static_cast<Export*>(self->manager_ctx); }

dlpack::ManagedTensor* finish(std::unique_ptr<Export> e, void* data, int32_t device_type, dlpack::DataType type) {
  dlpack::Tensor& t = e->managed.dl_tensor;
  t.data = data;
  t.device = {device_type, 0};
  t.ndim = int32_t(e->shape.size());
  t.dtype = type;
  t.shape = e->shape.data();
  e->managed.manager_ctx = e.get();
  e->managed.deleter = delete_export;
  return &e.release()->managed;
}

}  // namespace

dlpack::ManagedTensor* to_dlpack(Tensor&& tensor) {
  auto e = std::make_unique<Export>();
  e->shape = tensor.shape();
  e->host = std::move(tensor);
  tensor = Tensor();
  const dlpack::DataType type = dlpack::data_type(e->host.dtype());
  void* data = e->host.bytes().data();
  return finish(std::move(e), data, dlpack::kCPU, type);
}

dlpack::ManagedTensor* to_dlpack(const DeviceTensor& tensor) {
  auto e = std::make_unique<Export>();
  e->shape = tensor.shape();
  e->device = tensor;
  // On the GPU an i64 is an i32 (wgrt/dtype.h): say what the buffer holds.
  const dlpack::DataType type =
      dlpack::data_type(tensor.dtype() == DType::I64 ? DType::I32 : tensor.dtype());
  return finish(std::move(e), tensor.webgpu_buffer(), dlpack::kWebGPU, type);
}

Tensor tensor_from_dlpack(const dlpack::Tensor& t) {
  if (t.device.device_type != dlpack::kCPU) {
    throw Error(ErrorCode::InvalidArgument, "a DLPack tensor on device type " + std::to_string(t.device.device_type) +
                                                ": wgrt copies from CPU memory (type 1) only");
  }
  const DType dtype = dlpack::dtype(t.dtype);
  if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr)) {
    throw Error(ErrorCode::InvalidArgument, "a DLPack tensor with " + std::to_string(t.ndim) + " dims and no shape");
  }
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  for (int32_t d = 0; d < t.ndim; ++d) {
    if (shape[d] < 0) {
      throw Error(ErrorCode::InvalidArgument, "a DLPack tensor of shape " + dims_string(shape) + ": dim " +
                                                  std::to_string(d) + " is negative");
    }
  }
  Tensor out(dtype, shape);
  const int64_t n = out.numel();
  if (n == 0) return out;
  if (t.data == nullptr) throw Error(ErrorCode::InvalidArgument, "a DLPack tensor with elements and no data");
  const size_t elem = host_size(dtype);
  const auto* base = static_cast<const uint8_t*>(t.data) + t.byte_offset;
  uint8_t* dst = out.bytes().data();
  if (t.strides == nullptr) {
    std::memcpy(dst, base, size_t(n) * elem);
    return out;
  }
  for (int32_t d = 0; d < t.ndim; ++d) {
    if (t.strides[d] < 0) {
      throw Error(ErrorCode::InvalidArgument, "a DLPack tensor with a negative stride (dim " + std::to_string(d) +
                                                  "): wgrt copies from non-negative strides only");
    }
  }
  // Walks the elements in row-major order, keeping each one's source offset.
  std::vector<int64_t> index(size_t(t.ndim), 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst + size_t(i) * elem, base + offset * int64_t(elem), elem);
    for (int32_t d = t.ndim - 1; d >= 0; --d) {
      offset += t.strides[d];
      if (++index[d] < shape[d]) break;
      offset -= t.strides[d] * shape[d];
      index[d] = 0;
    }
  }
  return out;
}

DeviceTensor device_tensor_from_dlpack(const Runtime& runtime, const dlpack::ManagedTensor& managed) {
  const dlpack::Tensor& t = managed.dl_tensor;
  if (t.device.device_type == dlpack::kCPU) return DeviceTensor::upload(runtime, tensor_from_dlpack(t));
  if (t.device.device_type != dlpack::kWebGPU) {
    throw Error(ErrorCode::InvalidArgument, "a DLPack tensor on device type " + std::to_string(t.device.device_type) +
                                                ": wgrt takes CPU (1) and WebGPU (15) tensors");
  }
  if (managed.deleter != delete_export) {
    throw Error(ErrorCode::NotSupported, "a DLPack tensor in a WebGPU buffer that wgrt did not export: wgrt cannot "
                                         "tell its size or its device (copy it through the host)");
  }
  const DeviceTensor& d = static_cast<const Export*>(managed.manager_ctx)->device;
  if (d.memory() && d.memory()->runtime->runtime.get() != runtime.impl()->runtime.get()) {
    throw Error(ErrorCode::NotSupported, "a DLPack tensor in a WebGPU buffer of another runtime's device (copy it "
                                         "through the host)");
  }
  return d;
}

}  // namespace wgrt::api
