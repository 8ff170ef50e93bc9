#include "gpu/device_memory.h"

#include <utility>

#include "gpu/device.h"
#include "wgrt/error.h"

namespace wgrt {

std::string_view device_type_name(DeviceType type) {
  switch (type) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::WebGPU: return "webgpu";
  }
  return "?";
}

DeviceType parse_device_type(std::string_view name) {
  if (name == "cpu") return DeviceType::CPU;
  if (name == "webgpu") return DeviceType::WebGPU;
  throw Error(ErrorCode::InvalidArgument, "unknown device type '" + std::string(name) + "' (cpu, webgpu)");
}

// Moved-from buffers are empty (size 0), so `if (buffer)` stays truthful.
DeviceMemoryBuffer::DeviceMemoryBuffer(DeviceMemoryBuffer&& other) noexcept
    : type_(other.type_), size_(std::exchange(other.size_, 0)), gpu_(std::move(other.gpu_)),
      host_(std::move(other.host_)) {}

DeviceMemoryBuffer& DeviceMemoryBuffer::operator=(DeviceMemoryBuffer&& other) noexcept {
  if (this != &other) {
    type_ = other.type_;
    size_ = std::exchange(other.size_, 0);
    gpu_ = std::move(other.gpu_);
    host_ = std::move(other.host_);
  }
  return *this;
}

DeviceMemoryBuffer DeviceMemoryBuffer::webgpu(gpu::Buffer buffer) {
  DeviceMemoryBuffer m;
  m.type_ = DeviceType::WebGPU;
  m.size_ = buffer.size();
  m.gpu_ = std::move(buffer);
  return m;
}

DeviceMemoryBuffer DeviceMemoryBuffer::cpu(uint64_t size) {
  DeviceMemoryBuffer m;
  m.type_ = DeviceType::CPU;
  m.size_ = size;
  m.host_.assign(size, 0);
  return m;
}

const gpu::Buffer& DeviceMemoryBuffer::gpu_buffer() const {
  if (type_ != DeviceType::WebGPU) {
    throw Error(ErrorCode::InvalidArgument, "a " + std::string(device_type_name(type_)) +
                                                " memory buffer has no GPU buffer");
  }
  return gpu_;
}

uint8_t* DeviceMemoryBuffer::host_data() {
  if (type_ != DeviceType::CPU) {
    throw Error(ErrorCode::InvalidArgument, "a " + std::string(device_type_name(type_)) +
                                                " memory buffer has no host bytes");
  }
  return host_.data();
}

DeviceMemoryBuffer WebGpuAllocator::allocate(uint64_t bytes, std::string_view label) {
  return DeviceMemoryBuffer::webgpu(gpu::Buffer::create(device_, bytes, gpu::BufferKind::Storage, label));
}

DeviceMemoryBuffer CpuAllocator::allocate(uint64_t bytes, std::string_view label) {
  try {
    return DeviceMemoryBuffer::cpu(bytes);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::OutOfMemory, "cannot allocate " + std::to_string(bytes) + " bytes of host memory for '" +
                                            std::string(label) + "'");
  }
}

}  // namespace wgrt
