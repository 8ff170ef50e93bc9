// Token ids fed to an embedding from the host are range-checked there: on the
// GPU an id past the table reads row 0 (the kernels clamp it) and the result
// is silently wrong. Ids computed on the GPU, or passed as a device buffer,
// are not checked (their values never reach the host).
#pragma once

#include <cstdint>
#include <string_view>

#include "graph/op_context.h"
#include "graph/resize_context.h"

namespace wgrt::ops {

// At check: the table (argument `arg`, rows along dim 0) must have a row,
// since the kernels clamp an out-of-range id to row 0.
void expect_table_rows(const OpArgs& args, size_t arg);

// At lowering: makes the op's hook fire when the ids change (not only their
// shape) if `idx` is a graph input; otherwise does nothing.
void watch_host_indices(OpContext& ctx, ValueId idx);

// In the op's hook: throws Error(InvalidArgument) naming the first id outside
// [0, rows) and its position, when the ids came from the host.
void check_host_indices(const ResizeContext& r, ValueId idx, DType dtype, int64_t rows, std::string_view op);

}  // namespace wgrt::ops
