#include "ops/linear/gemv_choice.h"

#include <algorithm>

#include "gpu/workgroups.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;  // @workgroup_size of the GEMVs

// Threads per weight row: about four 32-element units each (loads of several
// units in flight per thread), 8 to 32, a power of two. (64 lanes measured
// 6% slower than 32 on the H200 for K = 2048 with the previous kernel,
// bench/RESULTS.md, so 32 is the cap.)
uint32_t lanes_for(uint32_t k) {
  const uint32_t units = k / 32;
  return units >= 128 ? 32 : units >= 64 ? 16 : 8;
}

// The same for gemv_planar.wgsl (4 blocks per lane staged at a time, at most
// 32 lanes), by the matrix's rows n as measured on the H200
// (bench/RESULTS.md, issue 13 variants): few rows (n <= 2048) get 32 lanes,
// so 8 rows per workgroup and more workgroups in flight (o, down: -10 %);
// many rows of short K (n >= 8192, K <= 2048) get 8, so 32 rows share one
// staging of x (head, gate/up: -15 %); otherwise 8 to 32 by K.
// Tuning::gemv_lanes (8, 16 or 32) overrides it for A/B runs.
uint32_t planar_lanes_for(const Tuning& tuning, uint32_t k, uint32_t n) {
  if (tuning.gemv_lanes != 0) return tuning.gemv_lanes;
  const uint32_t units = k / 32;
  if (n <= 2048) return 32;
  if (n >= 8192 && units <= 64) return 8;
  return units >= 128 ? 32 : units >= 48 ? 16 : 8;
}

// Row blocks per workgroup for the planar GEMVs (ROW_BLOCKS): for matrices
// of at least 2048 row groups (output heads) whose whole x row fits one
// staging (K <= 4096) and that have no paired-row epilogue, 4 (f32 x) or 8
// (int8 x), else 1. Measured on the H200 (bench/RESULTS.md): llama1b's head
// with f32 x 121.3 -> 110.6 us at 4 (2 blocks 109.1, 8 111.4; 2026-12-01);
// with int8 x (session 9) 84.1 -> 68.5 / 65.0 / 61.4 us at 2 / 4 / 8 (each
// workgroup's quantization of x then serves 8 x 32 rows), tg128 +2.0 % at
// 4. On matrices of 2048 rows or fewer more blocks were slower (fewer
// workgroups: 2048x2048 8.8 -> 10.9 us at 2); SmolLM2's head (1,536 row
// groups) gained nothing consistent (29.2 -> 30.9 / 27.6 / 34.5).
// Tuning::gemv_row_blocks (1 to 8) overrides it where the kernel allows (A/B).
uint32_t planar_row_blocks(const Tuning& tuning, uint32_t k, uint64_t row_groups, bool paired_rows, bool int8_x) {
  constexpr uint32_t kMaxUnits = 128;  // CHUNK_UNITS in gemv_planar.wgsl, XQ_UNITS in gemv_planar_q8.wgsl
  if (k / 32 > kMaxUnits || paired_rows) return 1;
  if (tuning.gemv_row_blocks != 0) return tuning.gemv_row_blocks;
  return row_groups >= 2048 ? (int8_x ? 8 : 4) : 1;
}

// How many int8 roundings of x the planar GEMV multiplies the weights with
// (gemv_planar_q8.wgsl's XQ_LEVELS: packed integer dot products), or 0 for
// the weights decoded to f32 (gemv_planar.wgsl). By default two for
// matrices of at least 8,192 rows, where the f32 kernel's nibble decoding
// bounds it; one rounding alone moved SmolLM2's logits by 0.2
// (tests/e2e/test_smollm2_reference.py allows 1e-3), the second's error is
// 254 times smaller. Measured on the H200 (bench/RESULTS.md, 2026-12-02,
// profiled us, f32 / one / two roundings): llama1b gate/up 23.7 / 15.4 /
// 17.6, head 110.6 / 74.6 / 83.7, QKV (3,072 rows) 12.8 / 11.5 / 13.6,
// 2048x2048 8.7 / 9.1 / 10.2; SmolLM2's head 33.5 / 24.8 / 29.6, its gate/up
// (3,072 x 576) 9.8 / 9.5 / 10.7. Below 8,192 rows each workgroup's
// quantization of x costs more than two roundings save, except on wide
// matrices (n and K both >= 4,096: every matrix of an 8B): with two roundings
// everywhere the 8B Q4_0 file decoded at 197.9 / 198.0 tok/s against 192.6 /
// 192.5 (H100, two calls, bench/RESULTS.md session 23), while llama1b's
// 2048-wide matrices lose (above).
// Tuning::gemv_activation F32, Q8 (one rounding) or Q8x2 forces one for every
// matrix (A/B) but those whose x is requantized already (x_dq8: f32).
uint32_t gemv_int8_levels(const Tuning& tuning, const GemvMatrix& matrix) {
  constexpr uint32_t kMinRows = 8192;
  constexpr uint32_t kMinWide = 4096;
  if (matrix.x_dq8) return 0;
  switch (tuning.gemv_activation) {
    case GemvActivation::F32: return 0;
    case GemvActivation::Q8: return 1;
    case GemvActivation::Q8x2: return 2;
    case GemvActivation::Auto: break;
  }
  // On CPU adapters the int8 kernel is the slower one: lavapipe, SmolLM2-shaped
  // head (49,152 x 576, Q4_0F32) 198 ms with two roundings, 57 ms with f32 x
  // (bench/RESULTS.md, 2026-12-06).
  if (matrix.cpu_adapter) return 0;
  const bool wide = matrix.n >= kMinWide && matrix.k >= kMinWide;
  return matrix.n >= kMinRows || wide ? 2 : 0;
}

// x rows per workgroup for M > 1 (XROWS): the kernels stage a chunk of
// x (gemv.wgsl 64 units, the planar ones 128) in parts of chunk / XROWS
// units per row, which must be at least LANES units (a part of fewer would
// idle lanes, or in gemv_planar.wgsl change which lane sums a unit); at most
// 8 (XROWS_MAX). The multi-row kernels have no row blocks (the host drops
// ROW_BLOCKS from their constants); a row-block kernel's sums equal theirs
// (the int8-x one's always: x fits one quantized chunk; the f32 one's where
// a lane's blocks, UPL * LANES units, fit one 128-unit chunk), else M > 1
// gets the one-row kernel per row.
uint32_t multi_rows_for(bool planar, bool int8_x, uint32_t row_blocks, uint32_t lanes, uint32_t upl) {
  const uint32_t chunk_units = planar ? 128 : 64;
  if (row_blocks > 1 && !int8_x && upl * lanes > chunk_units) return 1;
  return std::min(8u, chunk_units / lanes);
}

const char* shader_for(bool planar, bool int8_x) {
  return !planar ? "linear/gemv.wgsl" : int8_x ? "linear/gemv_planar_q8.wgsl" : "linear/gemv_planar.wgsl";
}

}  // namespace

GemvChoice choose_gemv(const Tuning& tuning, const GemvMatrix& matrix, const gpu::OverrideConstants& constants) {
  const uint32_t lanes = matrix.planar ? planar_lanes_for(tuning, matrix.k, matrix.n) : lanes_for(matrix.k);
  const uint32_t rows_per_group = kWorkgroup / lanes;
  GemvChoice g;
  g.rows_per_group = rows_per_group;
  g.constants = constants;
  // gemv_planar.wgsl decodes by itself (no dequant.wgsl, so no ROW_UNITS).
  if (matrix.planar) std::erase_if(g.constants, [](const auto& kv) { return kv.first == "ROW_UNITS"; });
  g.constants.insert(g.constants.end(), {{"LANES", lanes},
                                         {"ROWS", rows_per_group},
                                         {"HAS_SWIGLU", matrix.swiglu ? 1.0 : 0.0},
                                         {"HAS_ROPE", matrix.rope ? 1.0 : 0.0}});
  const uint32_t xq_levels = matrix.planar ? gemv_int8_levels(tuning, matrix) : 0;
  const bool q8 = xq_levels > 0;
  if (q8) g.constants.push_back({"XQ_LEVELS", double(xq_levels)});
  if (matrix.planar) {
    const bool paired_rows = matrix.swiglu || matrix.rope;
    g.row_blocks = planar_row_blocks(tuning, matrix.k, gpu::div_up(matrix.n, rows_per_group), paired_rows, q8);
  }
  // Blocks each lane loads together (UPL), and a timing probe that removes
  // one cost (gemv_planar_weights.wgsl's PROBE: wrong results; A/B only).
  if (matrix.planar) g.constants.push_back({"UPL", double(tuning.gemv_blocks_per_lane)});
  if (const uint32_t probe = matrix.planar ? uint32_t(tuning.gemv_probe) : 0; probe != 0) {
    g.constants.push_back({"PROBE", double(probe)});
  }
  if (g.row_blocks > 1) g.constants.push_back({"ROW_BLOCKS", double(g.row_blocks)});
  // Several rows of x (a batched step, a short prompt) of a matrix with K >=
  // 4,096 keep x in f32 unless an int8 rounding is forced: there the int8-x
  // kernel's staging of every row costs more than its integer dot products
  // save. Measured on the H100 (bench/RESULTS.md session 24): the 8B's fused
  // gate/up (K 4,096) at 4 rows 862 us with int8 x, 561 with f32 x, its
  // batched decode at 4 rows 162 tok/s (below one sequence's 198) against
  // 218; but Llama-1B's int8-x matrices (K 2,048: gate/up, head) lost with
  // f32 x, batched decode at 8 rows 1,221 -> 1,078 tok/s. Where the two
  // kernels differ, a row's sums are not its one-row step's
  // (WGRT_GEMV_ACT=f32 keeps them equal).
  constexpr uint32_t kMinF32RowsK = 4096;
  const bool q8_multi = q8 && (tuning.gemv_activation != GemvActivation::Auto || matrix.k < kMinF32RowsK);
  // (Where both kernels stage x alike, multi_rows_for keeps each row's sums its one-row step's.)
  g.multi_rows =
      multi_rows_for(matrix.planar, q8_multi, q8 == q8_multi ? g.row_blocks : 1, lanes, tuning.gemv_blocks_per_lane);
  if (g.multi_rows > 1) {
    g.multi_constants = g.constants;
    std::erase_if(g.multi_constants, [&](const auto& kv) {
      return kv.first == "ROW_BLOCKS" || (kv.first == "XQ_LEVELS" && !q8_multi);
    });
    g.multi_constants.push_back({"XROWS", double(g.multi_rows)});
  }
  g.shader = shader_for(matrix.planar, q8);
  g.multi_shader = shader_for(matrix.planar, q8_multi);
  return g;
}

}  // namespace wgrt::ops
