#include "gpu/buffer_usage.h"

#include <webgpu.h>

#include <utility>

namespace wgrt::gpu {

std::vector<std::string> buffer_usage_names(uint64_t usage) {
  static const std::pair<WGPUBufferUsage, const char*> kBits[] = {
      {WGPUBufferUsage_MapRead, "MapRead"},   {WGPUBufferUsage_MapWrite, "MapWrite"},
      {WGPUBufferUsage_CopySrc, "CopySrc"},   {WGPUBufferUsage_CopyDst, "CopyDst"},
      {WGPUBufferUsage_Index, "Index"},       {WGPUBufferUsage_Vertex, "Vertex"},
      {WGPUBufferUsage_Uniform, "Uniform"},   {WGPUBufferUsage_Storage, "Storage"},
      {WGPUBufferUsage_Indirect, "Indirect"}, {WGPUBufferUsage_QueryResolve, "QueryResolve"},
  };
  std::vector<std::string> names;
  for (const auto& [bit, name] : kBits) {
    if (usage & bit) names.emplace_back(name);
  }
  return names;
}

}  // namespace wgrt::gpu
