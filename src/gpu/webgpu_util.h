// Small conversions shared by the gpu/*.cpp files (which include webgpu.h).
#pragma once

#include <webgpu.h>

#include <string>
#include <string_view>

namespace wgrt::gpu {

inline std::string to_string(WGPUStringView s) {
  if (s.data == nullptr) return {};
  if (s.length == WGPU_STRLEN) return std::string(s.data);
  return std::string(s.data, s.length);
}

inline WGPUStringView to_view(std::string_view s) { return WGPUStringView{s.data(), s.size()}; }

}  // namespace wgrt::gpu
