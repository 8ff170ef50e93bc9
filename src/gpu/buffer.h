// GPU buffers: storage (tensors, weights), uniform (per-op parameters) and
// readback (mapped for reading on the host). A Buffer owns its WGPUBuffer and
// releases it once; sizes are rounded up to 4 bytes as WebGPU copies require.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "gpu/handle.h"

namespace wgrt::gpu {

class Device;

// QueryResolve receives GPU timestamps (gpu/command_batch.cpp). Upload is
// host-visible staging, made mapped for writing (gpu/upload_ring.h); it is
// host memory on a discrete GPU, so the device's allocation count leaves it out.
enum class BufferKind { Storage, Uniform, Readback, QueryResolve, Upload };

class Buffer {
 public:
  // Throws Error(OutOfMemory) naming the label and size when the device
  // refuses (or the size is above maxBufferSize); the device is unchanged.
  static Buffer create(Device& device, uint64_t size, BufferKind kind, std::string_view label);

  Buffer() = default;
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  explicit operator bool() const { return bool(buffer_); }
  uint64_t size() const { return size_; }
  BufferKind kind() const { return kind_; }
  // WebGPU's WGPUBufferUsage bits, as the device sees them.
  uint64_t usage() const;

  // Queue a host-to-GPU copy (ordered before any later submit).
  // Const: it changes the GPU contents, not this handle.
  void write(uint64_t offset, const void* data, uint64_t bytes) const;
  // Copy bytes back to the host; submits and waits. For any kind but Readback
  // this goes through a temporary readback buffer.
  std::vector<uint8_t> read(uint64_t offset, uint64_t bytes) const;
  std::vector<uint8_t> read() const { return read(0, size_); }

  WGPUBuffer raw() const { return buffer_.get(); }

 private:
  void release();

  Device* device_ = nullptr;
  Handle<WGPUBuffer> buffer_;
  uint64_t size_ = 0;
  BufferKind kind_ = BufferKind::Storage;
};

}  // namespace wgrt::gpu
