#include "gpu/buffer.h"

#include <webgpu.h>

#include <cstring>
#include <string>
#include <utility>

#include "gpu/device.h"
#include "gpu/webgpu_util.h"
#include "wgrt/error.h"

namespace wgrt::gpu {
namespace {

constexpr uint64_t align4(uint64_t n) { return (n + 3) & ~uint64_t{3}; }

WGPUBufferUsage usage_for(BufferKind kind) {
  switch (kind) {
    case BufferKind::Storage:
      return WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
    case BufferKind::Uniform:
      return WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst;
    case BufferKind::Readback:
      return WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
    case BufferKind::QueryResolve:
      return WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc;
    case BufferKind::Upload:
      return WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc;
  }
  return WGPUBufferUsage_None;
}

const char* kind_name(BufferKind kind) {
  switch (kind) {
    case BufferKind::Storage: return "storage";
    case BufferKind::Uniform: return "uniform";
    case BufferKind::Readback: return "readback";
    case BufferKind::QueryResolve: return "query resolve";
    case BufferKind::Upload: return "upload";
  }
  return "?";
}

}  // namespace

Buffer Buffer::create(Device& device, uint64_t size, BufferKind kind, std::string_view label) {
  const uint64_t padded = align4(size == 0 ? 4 : size);
  auto fail = [&](const std::string& why) {
    return Error(ErrorCode::OutOfMemory, "cannot allocate " + std::string(kind_name(kind)) + " buffer '" +
                                             std::string(label) + "' of " + std::to_string(size) +
                                             " bytes: " + why);
  };
  if (padded > device.limits().max_buffer_size) {
    throw fail("above the device's maxBufferSize of " + std::to_string(device.limits().max_buffer_size));
  }
  device.throw_if_lost();
  if (device.consume_injected_failure(Device::Site::Buffer)) throw fail("injected failure (test hook)");

  WGPUBufferDescriptor desc = WGPU_BUFFER_DESCRIPTOR_INIT;
  desc.label = to_view(label);
  desc.size = padded;
  desc.usage = usage_for(kind);
  desc.mappedAtCreation = kind == BufferKind::Upload;
  Buffer b;
  try {
    b.buffer_ = device.scoped("creating a buffer", [&] { return wgpuDeviceCreateBuffer(device.raw(), &desc); });
  } catch (const Error& e) {
    throw fail(e.what());
  }
  if (!b.buffer_) throw fail("the device returned no buffer");
  b.device_ = &device;
  b.size_ = padded;
  b.kind_ = kind;
  if (kind != BufferKind::Upload) device.note_allocated(padded);
  return b;
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept
    : device_(other.device_), buffer_(std::move(other.buffer_)), size_(other.size_), kind_(other.kind_) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    device_ = other.device_;
    buffer_ = std::move(other.buffer_);
    size_ = other.size_;
    kind_ = other.kind_;
  }
  return *this;
}

void Buffer::release() {
  if (!buffer_) return;
  wgpuBufferDestroy(buffer_.get());  // frees the memory now, even if WebGPU still holds a reference
  buffer_.reset();
  if (kind_ != BufferKind::Upload) device_->note_released(size_);
}

uint64_t Buffer::usage() const { return buffer_ ? wgpuBufferGetUsage(buffer_.get()) : 0; }

void Buffer::write(uint64_t offset, const void* data, uint64_t bytes) const {
  if (offset + bytes > size_) {
    throw Error(ErrorCode::InvalidArgument, "write of " + std::to_string(bytes) + " bytes at offset " +
                                                std::to_string(offset) + " overruns a buffer of " +
                                                std::to_string(size_) + " bytes");
  }
  if (bytes == 0) return;
  device_->throw_if_lost();
  if (offset % 4 != 0) throw Error(ErrorCode::InvalidArgument, "buffer writes must start at a multiple of 4");
  if (bytes % 4 == 0) {
    wgpuQueueWriteBuffer(device_->queue(), buffer_.get(), offset, data, bytes);
    return;
  }
  // WebGPU writes whole 4-byte words; pad the tail with zeros.
  std::vector<uint8_t> padded(align4(bytes), 0);
  std::memcpy(padded.data(), data, bytes);
  wgpuQueueWriteBuffer(device_->queue(), buffer_.get(), offset, padded.data(), padded.size());
}

std::vector<uint8_t> Buffer::read(uint64_t offset, uint64_t bytes) const {
  if (offset + bytes > size_) {
    throw Error(ErrorCode::InvalidArgument, "read of " + std::to_string(bytes) + " bytes at offset " +
                                                std::to_string(offset) + " overruns a buffer of " +
                                                std::to_string(size_) + " bytes");
  }
  if (bytes == 0) return {};
  device_->throw_if_lost();
  const uint64_t begin = offset & ~uint64_t{3};
  const uint64_t end = align4(offset + bytes);

  const Buffer* source = this;
  Buffer staging;
  if (kind_ != BufferKind::Readback) {
    staging = Buffer::create(*device_, end - begin, BufferKind::Readback, "readback");
    if (device_->consume_injected_failure(Device::Site::Submit)) {
      throw Error(ErrorCode::Internal, "submitting the copy to a readback buffer: injected failure (test hook)");
    }
    const Handle<WGPUCommandEncoder> enc(wgpuDeviceCreateCommandEncoder(device_->raw(), nullptr));
    wgpuCommandEncoderCopyBufferToBuffer(enc.get(), raw(), begin, staging.raw(), 0, end - begin);
    const Handle<WGPUCommandBuffer> cmd(wgpuCommandEncoderFinish(enc.get(), nullptr));
    WGPUCommandBuffer commands = cmd.get();
    wgpuQueueSubmit(device_->queue(), 1, &commands);
    source = &staging;
  }
  const uint64_t map_offset = source == this ? begin : 0;

  struct MapResult {
    bool done = false;
    WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
    std::string message;
  } result;
  WGPUBufferMapCallbackInfo cb = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.userdata1 = &result;
  cb.callback = [](WGPUMapAsyncStatus status, WGPUStringView message, void* ud, void*) {
    auto* r = static_cast<MapResult*>(ud);
    r->status = status;
    r->message = to_string(message);
    r->done = true;
  };
  if (device_->consume_injected_failure(Device::Site::BufferMap)) {
    result.message = "injected failure (test hook)";  // fails below as a refused mapping does
  } else {
    wgpuBufferMapAsync(source->raw(), WGPUMapMode_Read, map_offset, end - begin, cb);
    device_->wait_until(&result.done);
  }
  if (result.status != WGPUMapAsyncStatus_Success) {
    throw Error(ErrorCode::Internal, "mapping a buffer for reading failed: " + result.message);
  }
  const auto* mapped =
      static_cast<const uint8_t*>(wgpuBufferGetConstMappedRange(source->raw(), map_offset, end - begin));
  std::vector<uint8_t> out(mapped + (offset - begin), mapped + (offset - begin) + bytes);
  wgpuBufferUnmap(source->raw());
  return out;
}

}  // namespace wgrt::gpu
