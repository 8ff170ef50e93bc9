// The ops' A/B switches that hold a count (WGRT_GEMM_*, WGRT_GEMV_*,
// WGRT_SDPA_*): read when a kernel is chosen, so one process can compare
// variants by environment alone (bench/variants_*.sh).
#pragma once

#include <cstdint>

namespace wgrt::ops {

// The count in environment variable `name`, or `fallback` when it is unset
// or empty. A value that is not a decimal count in [lo, hi] throws
// InvalidArgument naming the variable, `what` it expects and the value.
uint64_t env_count(const char* name, const char* what, uint64_t fallback, uint64_t lo = 0,
                   uint64_t hi = 999999999);

}  // namespace wgrt::ops
