#include "ops/linear/gemm.h"

#include <cstdlib>

#include "gpu/device.h"
#include "gpu/workgroups.h"

namespace wgrt::ops {

bool gemm_precision_for(const gpu::Device& device, MatmulPrecision wanted, MatmulPrecision& chosen) {
  // Auto keeps the older kernels: on the H200 (2026-12-01, bench/RESULTS.md)
  // this family took 4.2 ms per llama1b prefill linear against 0.2-2 ms for
  // linear.wgsl's 32 x 64 tiles. An explicit precision (WGRT_MATMUL,
  // LoadOptions::matmul_precision) selects it until it is tuned.
  if (wanted == MatmulPrecision::Auto) return false;
  const bool f16 = device.features().shader_f16;
  chosen = wanted;
  if (!f16) chosen = MatmulPrecision::F32;
  // xs (BM x 32) + ws (BN x 32) in FT.
  const uint32_t bytes = (kGemmTileM + kGemmTileN) * 32 * (chosen == MatmulPrecision::F32 ? 4 : 2);
  return device.limits().max_compute_workgroup_storage_size >= bytes;
}

const gpu::ComputePipeline& gemm_pipeline(OpContext& ctx, const char* decoder, MatmulPrecision precision,
                                          gpu::OverrideConstants constants) {
  const char* prelude = precision == MatmulPrecision::F16      ? "linear/gemm_f16.wgsl"
                        : precision == MatmulPrecision::F16Acc ? "linear/gemm_f16acc.wgsl"
                                                               : "linear/gemm_f32.wgsl";
  return ctx.pipeline({prelude, decoder, "linear/gemm.wgsl"}, "gemm", constants);
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

uint64_t gemm_family_min_workgroups() {
  const char* v = std::getenv("WGRT_GEMM_MIN_WORKGROUPS");
  return v != nullptr && *v != 0 ? std::strtoull(v, nullptr, 10) : 128;
}

uint64_t gemm_workgroups(uint64_t m, uint64_t n) { return gpu::div_up(m, kGemmTileM) * gpu::div_up(n, kGemmTileN); }

}  // namespace wgrt::ops
