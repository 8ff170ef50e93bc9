// An owning, move-only holder of one WebGPU object reference: the reference
// is released when the Handle is destroyed, reset or assigned over. Every
// WebGPU object wgrt creates lives in one, so no code outside handle.cpp
// calls a wgpu*Release function.
//
// The release (and add-ref) of each handle type is an overload of
// gpu::release / gpu::add_ref, declared here on the opaque types of
// webgpu_fwd.h and defined in handle.cpp: headers that hold a Handle never
// include webgpu.h, which stays inside gpu/*.cpp.
#pragma once

#include <utility>

#include "gpu/webgpu_fwd.h"

namespace wgrt::gpu {

void release(WGPUInstance h);
void release(WGPUAdapter h);
void release(WGPUDevice h);
void release(WGPUQueue h);
void release(WGPUBuffer h);
void release(WGPUComputePipeline h);
void release(WGPUBindGroup h);
void release(WGPUBindGroupLayout h);
void release(WGPUShaderModule h);
void release(WGPUQuerySet h);
void release(WGPUCommandEncoder h);
void release(WGPUCommandBuffer h);
void release(WGPUComputePassEncoder h);

void add_ref(WGPUBuffer h);
void add_ref(WGPUComputePipeline h);
void add_ref(WGPUBindGroup h);
void add_ref(WGPUShaderModule h);

template <typename T>
class Handle {
 public:
  Handle() = default;
  // Adopts `raw`: takes over the one reference its creator returned.
  explicit Handle(T raw) : raw_(raw) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : raw_(std::exchange(other.raw_, nullptr)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) reset(std::exchange(other.raw_, nullptr));
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  // A second owner of the same object (WebGPU add-ref): for the few places
  // that hold an object alongside another owner.
  Handle share() const {
    if (raw_ != nullptr) add_ref(raw_);
    return Handle(raw_);
  }

  T get() const { return raw_; }
  explicit operator bool() const { return raw_ != nullptr; }
  // Gives up ownership: the caller holds the reference now.
  T take() { return std::exchange(raw_, nullptr); }
  // Releases what is held, then adopts `raw`.
  void reset(T raw = nullptr) {
    if (raw_ != nullptr) release(raw_);
    raw_ = raw;
  }

 private:
  T raw_ = nullptr;
};

}  // namespace wgrt::gpu
