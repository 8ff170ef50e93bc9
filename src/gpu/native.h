// The calls that exist only in wgpu-native (wgpu.h), kept here so another
// webgpu.h implementation (Dawn) replaces one file: wgpu_native.cpp.
#pragma once

#include <string>
#include <vector>

#include "gpu/handle.h"
#include "gpu/webgpu_fwd.h"

namespace wgrt::gpu::native {

// An instance limited to the primary backends (Vulkan, Metal, D3D12): wgrt
// does not want a GL adapter standing in when Vulkan is missing.
WGPUInstance create_instance();

// Every adapter the instance sees, in the implementation's order; empty where adapters cannot be listed (a browser
// offers one, through requestAdapter).
std::vector<Handle<WGPUAdapter>> enumerate_adapters(WGPUInstance instance);

// Processes completed work and fires ready callbacks; with wait, blocks until
// the queue is idle first.
void poll(WGPUDevice device, bool wait);

// Submits one command buffer and returns its submission index, for
// poll_until. (Standard webgpu.h has no index; wgpu-native's does.)
uint64_t submit(WGPUQueue queue, WGPUCommandBuffer commands);
// Processes completed work and fires ready callbacks, blocking until the
// submission `index` has finished (not the work submitted after it).
void poll_until(WGPUDevice device, uint64_t index);

// wgpu-native offers subgroups as its own feature (WGPUNativeFeature_Subgroup)
// rather than the standard WGPUFeatureName_Subgroups; this is its value.
unsigned subgroups_feature();

// Which checks wgpu's shader translator adds to every shader (wgpu's
// ShaderRuntimeChecks): index clamping on arrays and buffers, and a counter
// in every loop that ends it after 2^64 iterations.
struct RuntimeChecks {
  bool bounds = true;
  bool loop_bounding = true;
};
// Creates a shader module with only the given checks.
WGPUShaderModule create_shader_module(WGPUDevice device, const WGPUShaderModuleDescriptor& desc, RuntimeChecks checks);

// Whether the shader compiler enforces WGSL's uniformity analysis on
// barriers that follow subgroup operations (a browser's Tint does, naga does
// not): then subgroup reductions take their uniform form
// (common/reduce_subgroup_uniform.wgsl).
bool strict_uniformity();

// Whether a mapped range is the buffer's memory itself (wgpu-native), so a
// host thread writing staging there saves a copy; false in a browser, where
// the range is a copy in wasm memory written back at unmap.
bool direct_mapped_writes();

// "wgpu-native X.Y.Z.W".
std::string version();

}  // namespace wgrt::gpu::native
