#include "gpu/workgroups.h"

#include <cmath>
#include <string>

#include "wgrt/error.h"

namespace wgrt::gpu {
namespace {

// Exact integer ceil(sqrt(n)) (a double sqrt can be off by one near squares).
uint64_t ceil_sqrt(uint64_t n) {
  uint64_t r = static_cast<uint64_t>(std::sqrt(static_cast<double>(n)));
  while (r * r > n) --r;
  while (r * r < n) ++r;
  return r;
}

}  // namespace

WorkgroupCount fold_workgroups(uint64_t count, uint32_t limit) {
  if (limit == 0) throw Error(ErrorCode::InvalidArgument, "fold_workgroups: limit is 0");
  if (count <= limit) return {static_cast<uint32_t>(count), 1, 1};
  const uint64_t x = ceil_sqrt(count);
  const uint64_t y = div_up(count, x);
  if (x > limit || y > limit) {
    throw Error(ErrorCode::NotSupported,
                "dispatch of " + std::to_string(count) + " workgroups does not fit in 2D: needs {" +
                    std::to_string(x) + ", " + std::to_string(y) + "}, limit per dimension is " +
                    std::to_string(limit));
  }
  return {static_cast<uint32_t>(x), static_cast<uint32_t>(y), 1};
}

}  // namespace wgrt::gpu
