// Workgroup counts and the 2D fold. Pure arithmetic: no device needed.
//
// WebGPU caps each dispatch dimension at maxComputeWorkgroupsPerDimension
// (65,535 by default). A kernel that needs more workgroups than that along one
// axis is dispatched as {x, y}; the shader rebuilds its linear workgroup index
// as wid.x + wid.y * num_workgroups.x and ignores indices >= count.
#pragma once

#include <cstdint>

namespace wgrt::gpu {

struct WorkgroupCount {
  uint32_t x = 1;
  uint32_t y = 1;
  uint32_t z = 1;

  uint64_t total() const { return uint64_t{x} * y * z; }
  friend bool operator==(const WorkgroupCount&, const WorkgroupCount&) = default;
};

// Folds a linear count into {x, y} with x, y <= limit: {count, 1} when it fits,
// else the near-square x = ceil(sqrt(count)), y = ceil(count / x), which keeps
// the idle workgroups below x (about sqrt(count)). Throws
// Error(NotSupported) when even the square needs a dimension above limit.
// A count of 0 gives {0, 1}: a dispatch that does nothing.
WorkgroupCount fold_workgroups(uint64_t count, uint32_t limit);

// ceil(a / b) for b > 0.
constexpr uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace wgrt::gpu
