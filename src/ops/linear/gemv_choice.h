// Which decode GEMV of the quantized linear family (linear_ggml.cpp) serves
// a matrix, and in what shape: gemv.wgsl for the block layout, for the
// planar layout gemv_planar.wgsl (weights decoded to f32) or
// gemv_planar_q8.wgsl (int8 roundings of x), with lanes per row, rows and
// row blocks per workgroup as measured (gemv_choice.cpp), or as Tuning's
// A/B switches force.
#pragma once

#include <cstdint>

#include "gpu/pipeline_cache.h"
#include "wgrt/tuning.h"

namespace wgrt::ops {

// The matrix a GEMV is chosen for: K x N, its weight layout, and its
// paired-row epilogues (SwiGLU of interleaved gate/up rows, RoPE).
struct GemvMatrix {
  uint32_t k = 0, n = 0;
  bool planar = false;  // weight_prep.h's planar layout
  bool swiglu = false, rope = false;
  // A CPU adapter (lavapipe, SwiftShader): its packed int8 dot products are
  // emulated, so Auto keeps x in f32 (gemv_choice.cpp).
  bool cpu_adapter = false;
  // x requantized per row first (the skeleton's {xq} slot "dq8",
  // linear/x_dq8.wgsl): the f32-x kernels, which stage x as f32 (an int8
  // rounding of it would round it twice).
  bool x_dq8 = false;
};

struct GemvChoice {
  const char* shader = nullptr;  // e.g. "linear/gemv_planar.wgsl"
  const char* multi_shader = nullptr;  // the multi-row GEMV's (x may stay f32 there)
  uint32_t rows_per_group = 0;   // weight rows per workgroup row block (ROWS)
  uint32_t row_blocks = 1;       // row blocks per workgroup (ROW_BLOCKS)
  gpu::OverrideConstants constants;
  // Batched decode (M > 1): x rows per workgroup of the GEMV's second
  // pipeline (XROWS, constants plus XROWS), which decodes each weight block
  // once for them all; 1 where the one-row GEMV serves every M (ROW_BLOCKS > 1).
  uint32_t multi_rows = 1;
  gpu::OverrideConstants multi_constants;
};

// The GEMV for `matrix`, its constants being `constants` (the weight's
// decoding and the call's optional parts) plus its own.
GemvChoice choose_gemv(const Tuning& tuning, const GemvMatrix& matrix, const gpu::OverrideConstants& constants);

}  // namespace wgrt::ops
