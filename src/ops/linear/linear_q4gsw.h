// et_vk.linear_q4gsw.default: what tests need to tell its two kernels apart.
#pragma once

#include <cstdint>

#include "graph/op_context.h"

namespace wgrt::ops {

// Dispatch labels: only the kernel chosen for the live M gets workgroups.
inline constexpr const char* kLinearGemvLabel = "linear_q4gsw gemv";
inline constexpr const char* kLinearGemmLabel = "linear_q4gsw gemm";

// Records linear_q4gsw's two kernels (GEMV for one live row, tiled GEMM
// otherwise) reading x from `x_data` (x's own buffer, or a scratch copy of x
// with x's shape, as linear_dq8ca_q4gsw passes its requantized input).
// Checks are the caller's (linear_q4gsw's check has the layout).
// The argument indices of x, weights, scales, group size, bias, out, and
// their checks (layouts as in linear_q4gsw.cpp's header comment).
struct Q4gswArgs {
  size_t x, weights, scales, group_size, bias, out;
};
void check_q4gsw_args(const OpArgs& args, const Q4gswArgs& at);

inline constexpr ValueId kNoBias = ~ValueId{0};
void record_linear_q4gsw(OpContext& ctx, const gpu::BufferBinding& x_data, ValueId x, ValueId w, ValueId scales,
                         int64_t group_size, ValueId bias, ValueId out);

}  // namespace wgrt::ops
