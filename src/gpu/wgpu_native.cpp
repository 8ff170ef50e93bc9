#include <webgpu.h>
#include <wgpu.h>

#include "gpu/native.h"

namespace wgrt::gpu::native {

WGPUInstance create_instance() {
  WGPUInstanceExtras extras = {};
  extras.chain.sType = static_cast<WGPUSType>(WGPUSType_InstanceExtras);
  extras.backends = WGPUInstanceBackend_Primary;
  WGPUInstanceDescriptor desc = WGPU_INSTANCE_DESCRIPTOR_INIT;
  desc.nextInChain = &extras.chain;
  return wgpuCreateInstance(&desc);
}

std::vector<Handle<WGPUAdapter>> enumerate_adapters(WGPUInstance instance) {
  WGPUInstanceEnumerateAdapterOptions options = {};
  options.backends = WGPUInstanceBackend_Primary;
  std::vector<WGPUAdapter> raw(wgpuInstanceEnumerateAdapters(instance, &options, nullptr));
  if (!raw.empty()) raw.resize(wgpuInstanceEnumerateAdapters(instance, &options, raw.data()));
  std::vector<Handle<WGPUAdapter>> adapters;
  for (WGPUAdapter a : raw) adapters.emplace_back(a);
  return adapters;
}

void poll(WGPUDevice device, bool wait) { wgpuDevicePoll(device, wait, nullptr); }

uint64_t submit(WGPUQueue queue, WGPUCommandBuffer commands) {
  return wgpuQueueSubmitForIndex(queue, 1, &commands);
}

void poll_until(WGPUDevice device, uint64_t index) {
  const WGPUSubmissionIndex i = index;
  wgpuDevicePoll(device, true, &i);
}

WGPUShaderModule create_shader_module(WGPUDevice device, const WGPUShaderModuleDescriptor& desc, RuntimeChecks checks) {
  WGPUShaderRuntimeChecks flags = WGPUShaderRuntimeChecks_None;
  if (checks.bounds) flags |= WGPUShaderRuntimeChecks_BoundsChecks;
  if (checks.loop_bounding) flags |= WGPUShaderRuntimeChecks_ForceLoopBounding;
  return wgpuDeviceCreateShaderModuleTrusted(device, &desc, flags);
}

unsigned subgroups_feature() { return WGPUNativeFeature_Subgroup; }

bool strict_uniformity() { return false; }

bool direct_mapped_writes() { return true; }

std::string version() {
  const uint32_t v = wgpuGetVersion();
  return "wgpu-native " + std::to_string((v >> 24) & 0xff) + "." + std::to_string((v >> 16) & 0xff) +
         "." + std::to_string((v >> 8) & 0xff) + "." + std::to_string(v & 0xff);
}

}  // namespace wgrt::gpu::native
