// Load-time checks of quantization parameters shared by the quantize /
// dequantize ops and the fused quantized kernels: a scale must be finite and
// non-zero, a zero point inside [qmin, qmax], qmin/qmax inside the integer
// type. Constant scale / zero-point tensors are checked element by element.
#pragma once

#include <cstdint>

#include "graph/op_registry.h"

namespace wgrt::ops {

// [lo, hi] of an integer element type (int8, uint8, int32; int64 as int32 on the GPU).
struct IntRange {
  int64_t lo = 0, hi = 0;
};
IntRange int_range(const OpArgs& args, size_t arg, DType t);

// qmin <= qmax, both inside `t`'s range; returns {qmin, qmax}.
IntRange check_qrange(const OpArgs& args, size_t qmin_arg, size_t qmax_arg, DType t);

// A scalar scale (Double) at `arg`: finite and non-zero.
double check_scale(const OpArgs& args, size_t arg);
// A scalar zero point at `arg`: an Int, or an integral Double (the PT2E
// exporter serializes a zero point of 0 as 0.0 at times).
int64_t zero_point_value(const OpArgs& args, size_t arg);
// The same, checked to be inside `range`.
int64_t check_zero_point(const OpArgs& args, size_t arg, IntRange range);

// Scale / zero-point tensors: f32 scales, int8/int32/int64 zero points, `count`
// elements each; when they are constants every element is checked as above.
// `used`: how many leading elements are read (the rest is the exporter's
// padding to a multiple of 4, zeros); -1: all.
void check_scale_tensor(const OpArgs& args, size_t arg, int64_t count, int64_t used = -1);
void check_zero_point_tensor(const OpArgs& args, size_t arg, int64_t count, IntRange range);

// A constant f32 scale matrix (rows of `stride` elements, of which the first
// `used` are read): every read element finite, and non-zero unless
// `zero_allowed` (ops whose reference defines a zero scale, q4gsw_requant).
void check_scale_matrix(const OpArgs& args, size_t arg, int64_t used, bool zero_allowed = false);

}  // namespace wgrt::ops
