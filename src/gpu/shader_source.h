// The WGSL text of every shader under src/, embedded at build time by CMake
// (cmake/embed_wgsl.cmake). Shaders are named by their path below src/ops/,
// for example "elementwise/binary.wgsl".
#pragma once

#include <string_view>
#include <vector>

namespace wgrt::gpu {

// Throws Error(NotFound) for a name that was not embedded.
std::string_view shader_source(std::string_view path);
// Every embedded shader's name.
std::vector<std::string_view> shader_names();

}  // namespace wgrt::gpu
