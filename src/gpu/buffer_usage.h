// Names of WebGPU buffer usage bits ("Storage", "CopySrc", ...), so code
// outside gpu/ (bindings, tests) can say what a buffer is without webgpu.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wgrt::gpu {

// The set bits of a WGPUBufferUsage value, by their WebGPU names, low bit first.
std::vector<std::string> buffer_usage_names(uint64_t usage);

}  // namespace wgrt::gpu
