#include "ops/linear/gemm.h"

#include <string>
#include <string_view>

#include "gpu/device.h"
#include "gpu/workgroups.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

// Depths measured on the H200 (bench/RESULTS.md, 2026-12-02 seventh run, f16,
// raw-word prefetch): 64x64_4x4 fastest at 2 (llama1b pp512 12,983 tok/s vs
// 12,622 at 1 and 11,642 at 4; SmolLM2 45,950 vs 39,886 / 42,585);
// 128x64_8x4 at 4 (llama1b 13,632 vs 12,340 at 2). The other tiles keep 2
// (lowered where their threads cannot stage that many units).
constexpr GemmTile kTiles[] = {
    {64, 64, 4, 4, 2, "64x64_4x4", "linear/gemm_tile_64x64_4x4.wgsl"},
    {64, 128, 4, 8, 2, "64x128_4x8", "linear/gemm_tile_64x128_4x8.wgsl"},
    {128, 128, 8, 8, 2, "128x128_8x8", "linear/gemm_tile_128x128_8x8.wgsl"},
    {64, 128, 8, 8, 2, "64x128_8x8", "linear/gemm_tile_64x128_8x8.wgsl"},
    {32, 64, 4, 4, 2, "32x64_4x4", "linear/gemm_tile_32x64_4x4.wgsl"},
    {64, 64, 8, 4, 2, "64x64_8x4", "linear/gemm_tile_64x64_8x4.wgsl"},
    {128, 64, 8, 4, 4, "128x64_8x4", "linear/gemm_tile_128x64_8x4.wgsl"},
};
constexpr const GemmTile& kLargeTile = kTiles[6];  // gemm_choose_large's tile
static_assert(std::string_view(kLargeTile.name) == "128x64_8x4");

// Fills `chosen` for `tile` at the depth asked for (or the tile's own),
// halved until the tile has a thread per staged unit and its workgroup
// memory fits; false if even depth 1 does not fit the device.
bool fit_tile(const gpu::Device& device, const Tuning& tuning, const GemmTile& tile, GemmChoice& chosen) {
  chosen.tile = tile;
  const uint32_t threads = (tile.bm / tile.tm) * (tile.bn / tile.tn);
  // xs (BM x BK) + ws (BN x BK) in FT, BK = 32 ku: all of gemm.wgsl's workgroup memory.
  const auto bytes = [&](uint32_t ku) {
    return (tile.bm + tile.bn) * 32 * ku * (chosen.precision == MatmulPrecision::F32 ? 4 : 2);
  };
  const uint32_t storage = device.limits().max_compute_workgroup_storage_size;
  chosen.ku = tuning.gemm_depth != 0 ? tuning.gemm_depth : tile.ku;
  chosen.f16_span = tuning.gemm_f16_span;
  while (chosen.ku > 1 && (tile.bn * chosen.ku > threads || bytes(chosen.ku) > storage)) chosen.ku /= 2;
  return storage >= bytes(chosen.ku) && device.limits().max_compute_invocations_per_workgroup >= threads;
}

}  // namespace

const GemmTile* find_gemm_tile(std::string_view name) {
  for (const GemmTile& t : kTiles) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

const GemmTile& gemm_tile(const Tuning& tuning) {
  if (tuning.gemm_tile.empty()) {
    // Measured on the H200 (bench/RESULTS.md, 2026-12-01 fifth run, f16,
    // shaders without wgpu's runtime checks): 64 x 64 tiles are fastest on
    // both models (llama1b pp512 11,617 tok/s vs 10,843 on 64 x 128 x 8 x 8,
    // the earlier choice for large matrices; SmolLM2 37,016 vs 28,120).
    return kTiles[0];
  }
  if (const GemmTile* t = find_gemm_tile(tuning.gemm_tile)) return *t;
  std::string known;
  for (const GemmTile& t : kTiles) known += std::string(known.empty() ? "" : ", ") + t.name;
  throw Error(ErrorCode::InvalidArgument,
              "Tuning::gemm_tile: unknown tile '" + tuning.gemm_tile + "' (known: " + known + ")");
}

bool gemm_choose(const gpu::Device& device, const Tuning& tuning, GemmChoice& chosen, uint32_t storage_buffers) {
  if (device.limits().max_storage_buffers_per_shader_stage < storage_buffers) return false;
  // The family is the prefill GEMM by default since it was measured faster
  // than linear/linear.wgsl's tiles on the H200 (this default: llama1b pp512
  // 9,020 vs 4,521 tok/s, SmolLM2 24,513 vs 20,412; in f32 6,307 and
  // 22,021). Tuning::gemm_family off keeps the ops' own GEMMs (an A/B switch).
  if (!tuning.gemm_family) return false;
  const MatmulPrecision wanted = tuning.matmul_precision;
  const bool f16 = device.features().shader_f16;
  chosen.precision = wanted == MatmulPrecision::Auto ? (f16 ? MatmulPrecision::F16 : MatmulPrecision::F32)
                     : f16                           ? wanted
                                                     : MatmulPrecision::F32;
  return fit_tile(device, tuning, gemm_tile(tuning), chosen);
}

// The defaults of Tuning::gemm_large_min_workgroups (1024) and
// gemm_large_min_k (8192), measured on the H200 (bench/RESULTS.md, 2026-12-02
// seventh run, pp512 profiles, 64x64_4x4 at depth 2 vs 128x64_8x4 at 4):
// llama1b's gate/up (1,024 large workgroups) 1,146 -> 1,069 us, its o/down
// (128) 368 -> 331 us on average, but its QKV (192) 237 -> 291 us and every
// SmolLM2 matrix (36-192) 1.4-1.6x slower. 1,024 (about eight waves on that
// GPU) takes the gain that holds. Then (session 7, per-matrix pp512
// profiles) at 128 large workgroups llama1b's down (K = 8192) 585 -> 520 us
// and o (K = 2048) only 151 -> 145; QKV (K = 2048, 192) loses. The large
// tile's deeper K loop pays where each workgroup runs long; K >= 8192 takes
// down's gain alone.
//
// The default of Tuning::gemm_f16_span, 128: one fold per staged K tile (64
// products on the 64x64 tile at depth 2, 128 on the large tile at depth 4).
// Measured on the H200 (session 8, bench/RESULTS.md), llama1b pp512 GEMMs
// 36.2 ms with a fold every 32 products, 34.9 every 64, 30.7 per tile, 29.9
// with none (f16acc): a fold inside the tile's K loop costs more than its
// adds. The error stays far inside the tests' bound (2e-3 of the sum of
// |terms| at K = 2048): worst 1.8-2.6e-4 at 128 against 1.2-1.6e-4 at 32 on
// that GPU. A power of two, so that the kernel's units per fold (capped at
// its depth of 1, 2 or 4 units) divide the depth: the fold loop never passes
// the staged tile.

bool gemm_use_large(const GemmTile& large, uint64_t m, uint64_t n, uint64_t k, uint64_t min_workgroups,
                    uint64_t min_k) {
  const uint64_t grid = gemm_workgroups(large, m, n);
  return (min_workgroups > 0 && grid >= min_workgroups) || (min_k > 0 && k >= min_k && grid >= 128);
}

bool gemm_choose_large(const gpu::Device& device, const Tuning& tuning, const GemmChoice& chosen, GemmChoice& large) {
  if (!tuning.gemm_tile.empty() || tuning.gemm_large_min_workgroups == 0) return false;
  large.precision = chosen.precision;
  return fit_tile(device, tuning, kLargeTile, large);
}

const gpu::ComputePipeline& gemm_pipeline(OpContext& ctx, const GemmChoice& choice, const char* decoder,
                                          gpu::OverrideConstants constants) {
  const bool f16 = choice.precision == MatmulPrecision::F16 || choice.precision == MatmulPrecision::F16Acc;
  const char* depth = choice.ku == 4 ? "4" : choice.ku == 2 ? "2" : "1";
  constants.emplace_back("ACC_UNITS", choice.precision == MatmulPrecision::F16 ? choice.f16_span / 32 : 0.0);
  return ctx.pipeline("linear/gemm.wgsl", "gemm", constants,
                      {{"precision", f16 ? "f16" : "f32"}, {"tile", choice.tile.prelude}, {"ku", depth},
                       {"decoder", decoder}});
}

const char* matmul_precision_name(MatmulPrecision precision) {
  switch (precision) {
    case MatmulPrecision::F32: return "f32";
    case MatmulPrecision::F16: return "f16";
    case MatmulPrecision::F16Acc: return "f16acc";
    case MatmulPrecision::Auto: break;
  }
  return "auto";
}


GemmUnusedBindings gemm_unused_bindings(OpContext& ctx, const gpu::BufferBinding& x) {
  return {x, x, ctx.scratch(4, "gemm unused output"), ctx.scratch(4, "gemm unused output")};
}

uint64_t gemm_workgroups(const GemmTile& tile, uint64_t m, uint64_t n) {
  return gpu::div_up(m, tile.bm) * gpu::div_up(n, tile.bn);
}

}  // namespace wgrt::ops
