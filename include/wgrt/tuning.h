// Every tuning switch of the engine, in one struct with its defaults in code.
// The library never reads the environment: a loaded program or model uses
// the Tuning its LoadOptions carry. Entry points (the `wgrt` CLI, the Python
// module, the ExecuTorch backend, the test harness) may start from
// `tuning_from_environment` (src/cli/environment.h), which maps the WGRT_*
// variables listed in the README's table onto these fields for A/B runs
// without a rebuild. `validate` refuses a value outside a field's range,
// naming the field.
#pragma once

#include <cstdint>
#include <string>

namespace wgrt {

// Arithmetic of the prefill matrix products (ops/linear/gemm.h):
//   Auto    GGUF linears: F16 where the device offers shader-f16, F32
//           otherwise; .pte matmuls and linears: their older f32 tiles
//   F32     f32 operands and sums
//   F16     f16 operands and products, f16 partial sums added into f32
//   F16Acc  f16 throughout (the seeds' f16-accumulate variant; largest error)
enum class MatmulPrecision { Auto, F32, F16, F16Acc };

// Flash attention for prompt chunks: Auto and On wherever the device can run
// it (the default, measured faster on the H200), Off never (an f16 KV cache
// still uses it).
enum class FlashAttention { Auto, Off, On };
// Which flash kernel: the tiled one where it fits (the default) or the rows one.
enum class FlashKernel { Tiled, Rows };

// Weight layout of the GGUF decode GEMVs: planar or the file's blocks. Auto
// (the default) is planar except on SwiftShader, whose decode step ran 4x
// slower with it (it runs the planar GEMV's staged x slowly).
enum class GemvLayout { Auto, Planar, Blocks };
// How x enters the planar GEMVs: Auto (rounded to int8 twice on matrices of
// 8,192 rows or more, f32 below), or forced for every matrix.
enum class GemvActivation { Auto, F32, Q8, Q8x2 };
// Timing probes of the planar GEMVs (wrong results; bench/variants_decode.sh only).
enum class GemvProbe { Off, NoX, NoMath, NoWeights };

// Convolution kernels: Igemm (implicit GEMM where it fits, the default),
// IgemmNoSplit (without splitting K), DepthwiseLoop (depthwise convolutions
// keep the loop over the window), Direct (the direct kernel everywhere).
enum class ConvKernel { Igemm, IgemmNoSplit, DepthwiseLoop, Direct };

// The runtime checks wgpu adds to shaders: None (the default: our shaders
// bound their loops and indices), Bounds (index clamps), All (wgpu's default).
enum class ShaderChecks { None, Bounds, All };

struct Tuning {
  // --- the graph -------------------------------------------------------
  // Submit after this many dispatches (0: once per run); -1: 64 for a
  // program, once per step for an LLM (its steps are in flight).
  int64_t submit_every = -1;
  bool scratch_pool = true;  // ops that run one after another share scratch
  bool fuse = true;          // the fusion passes at load
  // Threads that read and repack weights while they upload (0: the loading
  // thread alone); -1: the machine's hardware threads, at most 8.
  int32_t upload_threads = -1;

  // --- prefill matrix products (the GEMM family) -------------------------
  MatmulPrecision matmul_precision = MatmulPrecision::Auto;
  bool gemm_family = true;      // false: the ops' own older GEMM tiles
  std::string gemm_tile;        // "" chooses; else one tile for every GEMM (e.g. "64x64_4x4")
  uint32_t gemm_depth = 0;      // K units per step: 0 chooses, else 1, 2 or 4
  uint64_t gemm_min_workgroups = 0;           // smaller grids keep the older tiles (0: none)
  uint64_t gemm_large_min_workgroups = 1024;  // the large tile from this grid (0: never)
  uint64_t gemm_large_min_k = 8192;           // ... or from this K at 128 workgroups (0: never)
  uint32_t gemm_f16_span = 128;  // products per f16 partial sum: a power of two, 32 or more

  // --- decode GEMVs (GGUF weights) ---------------------------------------
  GemvLayout gemv_layout = GemvLayout::Auto;
  GemvActivation gemv_activation = GemvActivation::Auto;
  uint32_t gemv_lanes = 0;            // lanes per row: 0 chooses by shape, else 8, 16 or 32
  uint32_t gemv_blocks_per_lane = 4;  // blocks each lane loads together: 1 to 8
  uint32_t gemv_row_blocks = 0;       // row blocks per workgroup: 0 chooses, else 1 to 8
  // The most rows of x the GEMV takes (1 to 32; more go to the GEMM family).
  // Above 1 it also records a multi-row GEMV that decodes each weight block
  // once for several rows (more pipelines to compile at load). An LLM loaded
  // with several sequences raises it to their number (a batched decode step).
  uint32_t gemv_batch_rows = 1;
  GemvProbe gemv_probe = GemvProbe::Off;

  // --- attention -----------------------------------------------------------
  FlashAttention flash_attention = FlashAttention::Auto;
  FlashKernel flash_kernel = FlashKernel::Tiled;
  uint32_t sdpa_split = 128;  // positions per decode split: 16 or more

  // --- convolution ---------------------------------------------------------
  ConvKernel conv_kernel = ConvKernel::Igemm;
  uint64_t conv_split_fill = 512;  // split K until this many workgroups are in flight (1 or more)
  uint32_t conv_split_min_slices = 4;  // ... in slices of at least this many K chunks (1 or more)

  // --- shaders -------------------------------------------------------------
  ShaderChecks shader_checks = ShaderChecks::None;
};

// Throws Error(InvalidArgument) naming the first field outside its range
// and what it accepts.
void validate(const Tuning& tuning);

}  // namespace wgrt
