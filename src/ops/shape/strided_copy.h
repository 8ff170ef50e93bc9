// The data-movement kernel shared by the shape ops (strided_copy.wgsl): a
// dispatch recorded once at lowering, and a plan (iteration shape, strides,
// bases) written by the op's resize hook from live shapes.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/op_context.h"

namespace wgrt::ops {

constexpr size_t kMaxCopyRank = 8;

struct CopyPlan {
  Dims dims;                          // iteration shape; rank <= kMaxCopyRank
  std::vector<int64_t> in_strides;    // elements, one per dim of `dims`
  std::vector<int64_t> out_strides;
  int64_t in_base = 0;
  int64_t out_base = 0;

  // Copies numel(dims) contiguous elements from the start of in to out.
  static CopyPlan flat(int64_t count);
};

struct StridedCopy {
  DispatchId dispatch = 0;
  UniformId uniform = 0;
};

// Records one strided copy from tensor `in` to tensor `out` (its count stays
// 0 until write_plan runs), in elements of in's dtype; with words, in 32-bit
// words whatever the dtype (a whole one-byte tensor copied as its words).
StridedCopy record_strided_copy(OpContext& ctx, ValueId in, ValueId out, bool words = false);

// Writes the plan's uniforms and workgroup count.
void write_plan(ResizeContext& r, const StridedCopy& copy, const CopyPlan& plan);

// True for dtypes the copy moves: 32-bit words (f32, i32, i64 as i32) and
// one-byte elements (bool, i8, u8).
bool copyable(DType t);
bool one_byte(DType t);

}  // namespace wgrt::ops
