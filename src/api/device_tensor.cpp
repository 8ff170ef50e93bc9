#include "wgrt/device_tensor.h"

#include "api/impl.h"
#include "core/dims.h"
#include "gpu/buffer_usage.h"
#include "graph/memory_plan.h"

namespace wgrt::api {

DeviceTensor DeviceTensor::upload(const Runtime& runtime, const Tensor& host) {
  std::vector<uint8_t> bytes = to_device_layout(host.dtype(), host.bytes(), "DeviceTensor::upload");
  if (bytes.empty()) return DeviceTensor(host.dtype(), host.shape(), nullptr);
  wgrt::Runtime& rt = *runtime.impl()->runtime;
  auto memory = std::make_shared<detail::DeviceMemory>(detail::DeviceMemory{
      runtime.impl(), rt.allocators().get(DeviceType::WebGPU).allocate(bytes.size(), "uploaded tensor")});
  bytes.resize((bytes.size() + 3) / 4 * 4, 0);  // WebGPU writes whole 4-byte words
  memory->memory.gpu_buffer().write(0, bytes.data(), bytes.size());
  return DeviceTensor(host.dtype(), host.shape(), std::move(memory));
}

int64_t DeviceTensor::numel() const { return wgrt::numel(shape_); }
uint64_t DeviceTensor::nbytes() const { return uint64_t(numel()) * device_size(dtype_); }
uint64_t DeviceTensor::buffer_bytes() const { return memory_ ? memory_->memory.size() : 0; }

std::string DeviceTensor::device() const {
  return std::string(device_type_name(memory_ ? memory_->memory.device_type() : DeviceType::WebGPU));
}

std::vector<std::string> DeviceTensor::buffer_usage() const {
  return memory_ ? gpu::buffer_usage_names(memory_->memory.usage()) : std::vector<std::string>{};
}

void* DeviceTensor::webgpu_buffer() const {
  return memory_ && memory_->memory.device_type() == DeviceType::WebGPU ? memory_->memory.gpu_buffer().raw()
                                                                        : nullptr;
}

Tensor DeviceTensor::to_host() const {
  std::vector<uint8_t> device = memory_ ? memory_->memory.gpu_buffer().read(0, nbytes()) : std::vector<uint8_t>{};
  return Tensor(dtype_, shape_, to_host_layout(dtype_, std::move(device)));
}

}  // namespace wgrt::api
