// The browser's native.h: what wgpu_native.cpp does with wgpu-native's own
// calls (wgpu.h), done with webgpu_library.js's twins of them. Built instead
// of wgpu_native.cpp for WebAssembly; never includes wgpu.h.
#include <webgpu.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "gpu/native.h"

// Implemented in webgpu_library.js. wgrt_web_poll and wgrt_web_poll_until are
// Asyncify imports: they suspend the wasm stack while the browser's event
// loop runs, then fire the callbacks that became ready.
extern "C" {
uint32_t wgrt_web_submit(WGPUQueue queue, WGPUCommandBuffer commands);
void wgrt_web_poll(WGPUDevice device, WGPUBool wait);
void wgrt_web_poll_until(WGPUDevice device, uint32_t index);
WGPUShaderModule wgrt_web_create_shader_module(WGPUDevice device, const WGPUShaderModuleDescriptor* desc);
}

namespace wgrt::gpu::native {
namespace {

// Whether a line of `code` is an `enable` directive naming subgroups.
bool has_subgroups_directive(std::string_view code) {
  for (size_t at = 0; at < code.size();) {
    const size_t end = std::min(code.find('\n', at), code.size());
    std::string_view line = code.substr(at, end - at);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.substr(0, 7) == "enable " && line.find("subgroups") != std::string_view::npos) return true;
    at = end + 1;
  }
  return false;
}

}  // namespace

// A browser picks its own backend: nothing to restrict.
WGPUInstance create_instance() { return wgpuCreateInstance(nullptr); }

std::vector<Handle<WGPUAdapter>> enumerate_adapters(WGPUInstance) { return {}; }

void poll(WGPUDevice device, bool wait) { wgrt_web_poll(device, wait ? WGPU_TRUE : WGPU_FALSE); }

// Indices count from 1 per device and fit in 32 bits on the web side.
uint64_t submit(WGPUQueue queue, WGPUCommandBuffer commands) { return wgrt_web_submit(queue, commands); }

void poll_until(WGPUDevice device, uint64_t index) { wgrt_web_poll_until(device, static_cast<uint32_t>(index)); }

// Runtime checks are a wgpu-native notion (wgpu's ShaderRuntimeChecks): a
// browser always bound-checks every access and offers no way to turn it off,
// so `checks` changes nothing here.
//
// One difference of dialect: wgpu-native (naga) takes subgroup built-ins
// without a directive, a browser (Tint) only after `enable subgroups;`. It
// is added when the shader names a subgroup built-in and the device has the
// feature (without it, the browser's own error stands), on the first line so
// that error messages keep their line numbers.
WGPUShaderModule create_shader_module(WGPUDevice device, const WGPUShaderModuleDescriptor& desc,
                                      RuntimeChecks /*checks*/) {
  const WGPUShaderSourceWGSL* wgsl = nullptr;
  for (const WGPUChainedStruct* c = desc.nextInChain; c != nullptr && wgsl == nullptr; c = c->next) {
    if (c->sType == WGPUSType_ShaderSourceWGSL) wgsl = reinterpret_cast<const WGPUShaderSourceWGSL*>(c);
  }
  if (wgsl == nullptr || wgsl->code.data == nullptr) return wgrt_web_create_shader_module(device, &desc);
  const WGPUStringView c = wgsl->code;
  const std::string_view code = c.length == WGPU_STRLEN ? std::string_view(c.data) : std::string_view(c.data, c.length);
  if (code.find("subgroup") == std::string_view::npos || has_subgroups_directive(code) ||
      !wgpuDeviceHasFeature(device, WGPUFeatureName_Subgroups)) {
    return wgrt_web_create_shader_module(device, &desc);
  }
  const std::string text = "enable subgroups; " + std::string(code);
  WGPUShaderSourceWGSL source = *wgsl;
  source.chain.next = nullptr;
  source.code = {text.data(), text.size()};
  WGPUShaderModuleDescriptor copy = desc;
  copy.nextInChain = &source.chain;
  return wgrt_web_create_shader_module(device, &copy);
}

// Browsers know subgroups by the standard name only.
unsigned subgroups_feature() { return WGPUFeatureName_Subgroups; }

// Tint refuses a barrier after control flow that depends on a subgroup
// operation's result.
bool strict_uniformity() { return true; }

bool direct_mapped_writes() { return false; }

std::string version() { return "browser WebGPU"; }

}  // namespace wgrt::gpu::native
