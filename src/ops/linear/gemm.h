// The prefill GEMM family (linear/gemm.wgsl): one tiled kernel for every
// weight format with a WGSL `decode_unit`, in the precision the graph asks
// for and one of a few tile shapes. Ops record it beside their GEMV and give
// it workgroups when M > 1.
#pragma once

#include <cstdint>
#include <string_view>

#include "graph/op_context.h"

namespace wgrt::ops {

inline constexpr const char* kGemmLabel = "gemm";

// A tile shape of gemm.wgsl: BM x BN outputs per workgroup, TM x TN per
// thread (each 4 or 8; BN / TN = 16), the K depth it runs at unless
// WGRT_GEMM_KU says otherwise, and its prelude file.
struct GemmTile {
  uint32_t bm, bn, tm, tn;
  uint32_t ku;
  const char* name;     // what WGRT_GEMM_TILE takes, e.g. "64x64_4x4"
  const char* prelude;  // linear/gemm_tile_*.wgsl
};

// The GEMM tile: the one Tuning::gemm_tile names, else 64x64_4x4 (measured,
// see gemm.cpp). Throws wgrt::Error naming the known tiles for an unknown name.
const GemmTile& gemm_tile(const Tuning& tuning);
// The tile called `name`, or nullptr.
const GemmTile* find_gemm_tile(std::string_view name);

// K depth of a staged tile: the 32-element units (1, 2 or 4) that gemm.wgsl
// stages per barrier pair, each decoded by its own threads (BN * ku of them).
// Tuning::gemm_depth names one (A/B runs); else 0: each tile's own
// (GemmTile::ku, measured: see gemm.cpp).

// What an op lowering the family uses.
struct GemmChoice {
  MatmulPrecision precision = MatmulPrecision::F32;
  GemmTile tile{};
  uint32_t ku = 1;  // Tuning::gemm_depth or the tile's own, lowered where the tile has too few threads or workgroup memory
  // Products per f16 partial sum in MatmulPrecision F16 before it is added
  // into f32 (Tuning::gemm_f16_span; the kernel caps it at its K tile, 32 * ku).
  uint32_t f16_span = 128;
};

// Whether the family serves this graph's linears, and in which precision and
// tile: Tuning::matmul_precision Auto is F16 where the device offers
// shader-f16, F32 otherwise; F16 and F16Acc fall back to F32 without it
// (fail-open). False with Tuning::gemm_family off (A/B) or when the device lacks the tile's workgroup
// memory or threads (the op then keeps its own GEMM). The depth is halved
// until the tile has a thread for each unit it stages and its workgroup
// memory fits (f32 at depth 4 needs 64 KiB). False also where a stage may
// bind fewer than `storage_buffers`, what the GEMM binds with the caller's
// decoder (8 through linear_io.wgsl, 9 with q4gsw_unit.wgsl's scales).
bool gemm_choose(const gpu::Device& device, const Tuning& tuning, GemmChoice& chosen, uint32_t storage_buffers = 8);

// The large tile (128x64_8x4) beside `chosen`, for live shapes whose grid of
// large tiles has at least Tuning::gemm_large_min_workgroups workgroups
// (1024: gemm.cpp says why), or a K of Tuning::gemm_large_min_k (8192) with
// 128 of them: each decoded weight unit then serves 128 rows of x, and the
// grid is deep enough that its last, partial wave costs little. False when
// Tuning::gemm_tile forces one tile, when that minimum is 0 (off), or when
// the device cannot run it.
bool gemm_choose_large(const gpu::Device& device, const Tuning& tuning, const GemmChoice& chosen, GemmChoice& large);
// Whether an M x N x K GEMM runs on the large tile (gemm_choose_large gave
// `large`): enough large workgroups, or a long K with at least 128 of them.
bool gemm_use_large(const GemmTile& large, uint64_t m, uint64_t n, uint64_t k, uint64_t min_workgroups, uint64_t min_k);

// The pipeline for `decoder` (a WGSL file defining Unit, UnitWords,
// fetch_unit and unit_from, e.g. "quant/dequant.wgsl") in the chosen
// precision, tile and depth, with the decoder's override constants plus
// HAS_BIAS (and HAS_NORM, HAS_RESIDUAL where set).
const gpu::ComputePipeline& gemm_pipeline(OpContext& ctx, const GemmChoice& choice, const char* decoder,
                                          gpu::OverrideConstants constants);

// "f32", "f16" or "f16acc" (what WGRT_MATMUL takes; Auto is "auto").
const char* matmul_precision_name(MatmulPrecision precision);

// Workgroups for an M x N output (to fold with ResizeContext::fold).
uint64_t gemm_workgroups(const GemmTile& tile, uint64_t m, uint64_t n);

// The params uniform of the linear kernels (Params in linear/linear_io.wgsl:
// gemm.wgsl and the quantized GEMVs): plain() for one output without a norm,
// run() for the rows [col0, col0 + rows) of a weight stored in runs, whose
// results land in those columns of an output out_cols wide.
struct GemmParams {
  uint32_t m = 0, n = 0, k = 0, row_words = 0;
  float eps = 0;
  uint32_t split1 = 0, split2 = 0, head_dim = 0;
  uint32_t out_col0 = 0, out_cols = 0;
  float x_eps = 0;  // x_quant's, for the GEMVs (linear/x_dq8.wgsl)
  uint32_t pad1 = 0;
  static GemmParams run(uint32_t m, uint32_t rows, uint32_t k, uint32_t row_words, uint32_t col0, uint32_t out_cols) {
    return {m, rows, k, row_words, 0.0f, rows, rows, 0, col0, out_cols};
  }
  static GemmParams plain(uint32_t m, uint32_t n, uint32_t k, uint32_t row_words) { return run(m, n, k, row_words, 0, n); }
};
static_assert(sizeof(GemmParams) == 48, "must match Params in linear/linear_io.wgsl");

// Bindings 5-8 of gemm.wgsl (linear_io.wgsl) for an op without a norm, residual or split
// outputs: `x` (read-only) for norm_w and residual, a scratch word each for
// out1 and out2 (one buffer bound twice as read_write would alias).
struct GemmUnusedBindings {
  gpu::BufferBinding norm, residual, out1, out2;
};
GemmUnusedBindings gemm_unused_bindings(OpContext& ctx, const gpu::BufferBinding& x);

}  // namespace wgrt::ops
