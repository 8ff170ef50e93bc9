// ExecuTorch's linears as calls of the GGUF linear family (wgrt.linear_ggml,
// ops/linear/linear_ggml.cpp), so that they run in the same GEMV skeleton and
// GEMM family and the fusion passes (fuse_linear.h) apply to them; run before
// those passes (ops/register_ops.cpp). Weights are rewritten losslessly:
//
//   et_vk.linear_q4gsw(x, W, scales, group, bias)   4-bit groupwise, f32 scales
//   et_vk.linear_qcs4w(x, W, scales)                4-bit, a scale per row
//     => linear_ggml(x, W as Q4_0F32 blocks (quant_layout.h), bias)
//   et_vk.linear_dq8ca_q4gsw(x, x scales, x zero points, W, ...)  8da4w
//     => linear_ggml(x, W as Q4_0F32 blocks, bias, x_quant = eps) where
//        choose_qparams_affine made the scales per row, ASYMMETRIC, int8:
//        the family requantizes x in its kernels (linear/x_dq8.wgsl), so a
//        norm before it fuses as in any other linear; the choose_qparams
//        call goes once no op reads its outputs
//   aten.linear(x, W f32 or f16, bias)
//     => linear_ggml(x, W's rows as ggml F32 / F16 rows, bias)
//
// Only where the weight (and scales) are constants, x is f32, rows are whole
// 32-element blocks (the group size too), and the new weight fits one
// binding (PassLimits::max_weight_bytes); otherwise the op stays as it is.
#pragma once

#include <cstddef>

#include "graph/graph.h"
#include "graph/op_registry.h"

namespace wgrt::passes {

// How many linears became linear_ggml calls.
size_t ggml_linears(Graph& graph, const PassLimits& limits);

}  // namespace wgrt::passes
