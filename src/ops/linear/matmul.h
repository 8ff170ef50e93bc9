// f32 matrix products on one shader (linear/matmul.wgsl): aten.linear.default,
// aten.mm.default and aten.bmm.default.
#pragma once

#include "graph/op_registry.h"

namespace wgrt::ops {

// Dispatch labels: only the kernel chosen for the live M gets workgroups.
inline constexpr const char* kMatmulGemvLabel = "matmul gemv";
inline constexpr const char* kMatmulGemmLabel = "matmul gemm";

void register_matmul(OpRegistry& registry);

}  // namespace wgrt::ops
