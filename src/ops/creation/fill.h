// Filling a tensor with one value (fill.wgsl), shared by the creation ops
// and constant_pad_nd.
#pragma once

#include "graph/op_context.h"

namespace wgrt::ops {

// WG in fill.wgsl: every fill pipeline is asked with it.
constexpr uint32_t kFillWorkgroup = 256;

// Mirrors `Params` in fill.wgsl.
struct FillParams {
  uint32_t words = 0, bits = 0;
  float start = 0, step = 0;
};

struct Fill {
  DispatchId dispatch = 0;
  UniformId uniform = 0;
  DType dtype = DType::F32;
  uint32_t bits = 0;  // one word of the value in the tensor's device encoding
};

// Records a fill of `out` with `value` (converted to out's dtype: f32, i32,
// i64 or bool). Its size is set by write_fill from live dims.
Fill record_fill(OpContext& ctx, ValueId out, double value);
void write_fill(ResizeContext& r, const Fill& fill, const Dims& dims);

// Whether the fill kernel can write a tensor of this dtype.
bool fillable(DType t);

}  // namespace wgrt::ops
