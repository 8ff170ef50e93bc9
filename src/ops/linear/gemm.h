// The prefill GEMM family (linear/gemm.wgsl): one tiled kernel for every
// weight format with a WGSL `decode_unit`, in the precision the graph asks
// for. Ops record it beside their GEMV and give it workgroups when M > 1.
#pragma once

#include <cstdint>

#include "graph/op_context.h"

namespace wgrt::ops {

inline constexpr uint32_t kGemmTileM = 64, kGemmTileN = 128;  // BM, BN in gemm.wgsl
inline constexpr const char* kGemmLabel = "gemm";

// The precision the kernel will use on this device: Auto is F16 where the
// device offers shader-f16; F16 and F16Acc fall back to F32 without it
// (fail-open). F32 needs 24 KiB of workgroup memory; returns false when the
// device has less for the chosen precision (the op then keeps its own GEMM).
bool gemm_precision_for(const gpu::Device& device, MatmulPrecision wanted, MatmulPrecision& chosen);

// The pipeline for `decoder` (a WGSL file defining Unit and decode_unit, e.g.
// "quant/dequant.wgsl") in `precision` (F32, F16 or F16Acc), with the
// decoder's override constants plus HAS_BIAS.
const gpu::ComputePipeline& gemm_pipeline(OpContext& ctx, const char* decoder, MatmulPrecision precision,
                                          gpu::OverrideConstants constants);

// "f32", "f16" or "f16acc" (what WGRT_MATMUL takes; Auto is "auto").
const char* matmul_precision_name(MatmulPrecision precision);

// Ops that also have a smaller-tile GEMM use it below this many family
// workgroups, where 4x more workgroups fill a large GPU better: 128 (a guess
// for 100+ compute units, unmeasured), or WGRT_GEMM_MIN_WORKGROUPS.
uint64_t gemm_family_min_workgroups();

// Workgroups for an M x N output (to fold with ResizeContext::fold).
uint64_t gemm_workgroups(uint64_t m, uint64_t n);

// The GEMM's params uniform (Params in gemm.wgsl, same as quant/linear.wgsl's).
struct GemmParams {
  uint32_t m = 0, n = 0, k = 0, row_words = 0;
};

}  // namespace wgrt::ops
