// Which shared reduction prelude a shader gets: subgroup operations where the
// device has them, workgroup memory otherwise (common/reduce_*.wgsl; list
// common/reduce.wgsl after it for workgroup_sum).
#pragma once

#include <string_view>

#include "gpu/device.h"

namespace wgrt::ops {

inline std::string_view reduce_shader(const gpu::Device& device) {
  return device.features().subgroups ? "common/reduce_subgroup.wgsl" : "common/reduce_workgroup.wgsl";
}

}  // namespace wgrt::ops
