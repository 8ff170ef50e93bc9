// wgrt's public C++ API: tensors in and out through DLPack (conventions:
// wgrt/runtime.h), the exchange format of numpy, torch, JAX and others.
//
// The structs below are DLPack's C ABI (version 0.8: the unversioned
// DLManagedTensor that __dlpack__ capsules named "dltensor" carry), declared
// here with the same layout under wgrt::api::dlpack, so that including this
// header next to dlpack/dlpack.h clashes with nothing; pointers convert with
// a reinterpret_cast.
#pragma once

#include <cstdint>

#include "wgrt/device_tensor.h"
#include "wgrt/runtime.h"
#include "wgrt/tensor.h"

namespace wgrt::api {

namespace dlpack {

enum DeviceType : int32_t { kCPU = 1, kVulkan = 7, kWebGPU = 15 };  // DLDeviceType values wgrt uses
enum TypeCode : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kBool = 6 };  // DLDataTypeCode values

struct Device {
  int32_t device_type = kCPU;
  int32_t device_id = 0;
};
struct DataType {
  uint8_t code = kFloat;
  uint8_t bits = 32;
  uint16_t lanes = 1;
};
struct Tensor {  // DLTensor
  void* data = nullptr;
  Device device;
  int32_t ndim = 0;
  DataType dtype;
  int64_t* shape = nullptr;
  int64_t* strides = nullptr;  // in elements; null: row-major
  uint64_t byte_offset = 0;
};
struct ManagedTensor {  // DLManagedTensor
  Tensor dl_tensor;
  void* manager_ctx = nullptr;
  void (*deleter)(ManagedTensor* self) = nullptr;
};

// DLPack's type of a dtype, and back: Error(InvalidArgument) for a type wgrt
// lacks (wgrt has f32, f16, i64, i32, i8, u8 and bool, one lane each).
DataType data_type(DType dtype);
DType dtype(DataType type);

}  // namespace dlpack

// Export. The returned tensor owns what it points at; whoever receives it
// calls its deleter once (a PyCapsule's consumer does). Neither throws but
// for OutOfMemory.
//  - A host Tensor: device kCPU, row-major, data = the tensor's bytes, which
//    move into the DLPack tensor (no copy; `tensor` is left empty).
//  - A DeviceTensor: device kWebGPU, id 0, data = its WGPUBuffer (null
//    without elements), byte_offset 0, in device layout (i64 stored as i32:
//    dtype says 32-bit int then). It shares the buffer with the handle.
dlpack::ManagedTensor* to_dlpack(Tensor&& tensor);
dlpack::ManagedTensor* to_dlpack(const DeviceTensor& tensor);

// Import, copying from a kCPU tensor (any strides, any byte_offset) into a
// host Tensor. Errors: InvalidArgument for another device, a dtype wgrt
// lacks, a negative dim or stride, or a null data pointer with elements. The
// caller keeps ownership of `tensor` (call its deleter when done).
Tensor tensor_from_dlpack(const dlpack::Tensor& tensor);
// Import onto `runtime`'s device. A kWebGPU tensor that to_dlpack(DeviceTensor)
// made on the same runtime comes back as a handle to the same buffer (no
// copy); a kCPU tensor is uploaded. Errors: as tensor_from_dlpack, and
// NotSupported for a WebGPU buffer wgrt did not export (wgrt cannot tell its
// size or device) or one from another runtime. The caller keeps ownership of
// `tensor`.
DeviceTensor device_tensor_from_dlpack(const Runtime& runtime, const dlpack::ManagedTensor& tensor);

}  // namespace wgrt::api
