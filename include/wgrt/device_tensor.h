// wgrt's public C++ API: tensors in GPU memory (conventions: wgrt/runtime.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "wgrt/dtype.h"
#include "wgrt/runtime.h"
#include "wgrt/tensor.h"

namespace wgrt::api {

namespace detail {
struct DeviceMemory;
}

// A row-major tensor in a WebGPU storage buffer, in device layout (host
// layout, except that i64 is stored as i32: wgrt/dtype.h, device_size).
// Made by Method::execute (RunOptions::device_outputs), by upload() or by
// from_dlpack(); given back to Method::execute as an input, its buffer is
// bound as is, without a copy through the host.
//
// Ownership: a handle. Copies share the one buffer, which is freed with the
// last of them; the buffer keeps its runtime's device alive. A tensor with no
// elements holds no buffer. The buffer is the tensor's own: no method writes
// it after handing it over.
// Threads: as its runtime (reading it back uses the device's queue).
class DeviceTensor {
 public:
  DeviceTensor() = default;  // an f32 tensor of shape [0], no buffer
  // Copies `host` into a new buffer on `runtime`'s device. Errors:
  // OutOfMemory, InvalidArgument (an i64 value outside the i32 range).
  static DeviceTensor upload(const Runtime& runtime, const Tensor& host);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t numel() const;
  // The tensor's bytes on the device: numel * device_size(dtype).
  uint64_t nbytes() const;
  // Bytes of its buffer (nbytes rounded up to 4); 0 without a buffer.
  uint64_t buffer_bytes() const;
  // Where its memory is: "webgpu" (the only kind Method::execute makes).
  std::string device() const;
  // The buffer's WebGPU usage flags by name ("Storage", "CopySrc", ...).
  std::vector<std::string> buffer_usage() const;
  // The WGPUBuffer, for WebGPU code sharing the runtime's device (and as an
  // identity in tests); null without a buffer. Valid while a copy of this
  // handle lives; wgrt keeps the reference (do not release it).
  void* webgpu_buffer() const;

  // A copy in host memory, in host layout; waits for the GPU work before it.
  Tensor to_host() const;

  // For the other API classes: not part of the API.
  DeviceTensor(DType dtype, std::vector<int64_t> shape, std::shared_ptr<detail::DeviceMemory> memory)
      : dtype_(dtype), shape_(std::move(shape)), memory_(std::move(memory)) {}
  const std::shared_ptr<detail::DeviceMemory>& memory() const { return memory_; }

 private:
  DType dtype_ = DType::F32;
  std::vector<int64_t> shape_{0};
  std::shared_ptr<detail::DeviceMemory> memory_;  // null without a buffer
};

}  // namespace wgrt::api
