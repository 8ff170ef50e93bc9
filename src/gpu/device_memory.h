// Memory that lives on a device, and the allocators that make it (the
// registry that picks one per device type is the runtime's). A program's
// outputs handed to a caller are DeviceMemoryBuffers from the allocator
// registered for the output's device (seed 001): never host memory posing as
// device memory, and never a buffer the graph will write again.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/buffer.h"

namespace wgrt {

namespace gpu {
class Device;
}

enum class DeviceType { CPU, WebGPU };
// "cpu", "webgpu".
std::string_view device_type_name(DeviceType type);
// The inverse of device_type_name; Error(InvalidArgument) for anything else.
DeviceType parse_device_type(std::string_view name);

// One allocation on one device. Move-only: it frees its memory once.
class DeviceMemoryBuffer {
 public:
  static DeviceMemoryBuffer webgpu(gpu::Buffer buffer);
  static DeviceMemoryBuffer cpu(uint64_t size);

  DeviceMemoryBuffer() = default;
  DeviceMemoryBuffer(DeviceMemoryBuffer&& other) noexcept;
  DeviceMemoryBuffer& operator=(DeviceMemoryBuffer&& other) noexcept;
  DeviceMemoryBuffer(const DeviceMemoryBuffer&) = delete;
  DeviceMemoryBuffer& operator=(const DeviceMemoryBuffer&) = delete;

  explicit operator bool() const { return size_ != 0; }
  DeviceType device_type() const { return type_; }
  // Bytes allocated (a WebGPU buffer's size is rounded up to 4).
  uint64_t size() const { return size_; }
  // WebGPU's WGPUBufferUsage bits for a WebGPU buffer; 0 for CPU memory.
  uint64_t usage() const { return type_ == DeviceType::WebGPU ? gpu_.usage() : 0; }

  // The GPU buffer; Error(InvalidArgument) if this is not WebGPU memory.
  const gpu::Buffer& gpu_buffer() const;
  // The host bytes; Error(InvalidArgument) if this is not CPU memory.
  uint8_t* host_data();

 private:
  DeviceType type_ = DeviceType::CPU;
  uint64_t size_ = 0;
  gpu::Buffer gpu_;
  std::vector<uint8_t> host_;
};

class DeviceAllocator {
 public:
  virtual ~DeviceAllocator() = default;
  virtual DeviceType device_type() const = 0;
  // Throws Error(OutOfMemory) when the device refuses; nothing is kept then.
  virtual DeviceMemoryBuffer allocate(uint64_t bytes, std::string_view label) = 0;
};

// Storage buffers (usable as a graph input and as a copy source and target)
// on one WebGPU device, which must outlive the allocator.
class WebGpuAllocator : public DeviceAllocator {
 public:
  explicit WebGpuAllocator(gpu::Device& device) : device_(device) {}
  DeviceType device_type() const override { return DeviceType::WebGPU; }
  DeviceMemoryBuffer allocate(uint64_t bytes, std::string_view label) override;

 private:
  gpu::Device& device_;
};

class CpuAllocator : public DeviceAllocator {
 public:
  DeviceType device_type() const override { return DeviceType::CPU; }
  DeviceMemoryBuffer allocate(uint64_t bytes, std::string_view label) override;
};

}  // namespace wgrt
