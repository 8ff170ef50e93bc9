// What the quantized linear kernels (gemv.wgsl for decode, linear.wgsl's
// tiled GEMM and the GEMM family linear/gemm.wgsl for prefill) share:
// parameters, bindings, and the epilogue that adds bias and residual and
// stores a result. Imported by the GEMV skeleton and the GEMMs.
//
// Optional parts (override constants, set from the op's arguments):
//   HAS_NORM: x is RMS-normalized first (x * norm_w / rms(x)); the kernels
//     multiply staged x by norm_w, sum squares, and scale each result once.
//   x_quant (the GEMVs' {xq} slot "dq8", linear/x_dq8.wgsl): x requantized
//     per row to int8 and back first, after the norm; the GEMMs read rows
//     that linear/x_dq8_rows.wgsl requantized.
//   HAS_BIAS: + bias[n].   HAS_RESIDUAL: + residual[m, n].   HAS_SWIGLU: below.
// Split outputs (the fusion pass's merged Q/K/V or gate/up projections):
// columns [0, split1) go to out, [split1, split2) to out1, [split2, n) to
// out2, each its own [M, width] tensor; split1 = split2 = n when there is one.
// A weight above the binding limit is bound in runs of rows, one dispatch
// each: n is then the run's rows, and its columns land at out_col0.. of an
// output (and bias, residual) out_cols wide; out_col0 = 0 and out_cols =
// split1 otherwise.

override HAS_BIAS: bool = false;
override HAS_NORM: bool = false;
override HAS_RESIDUAL: bool = false;
// The decode GEMV's SwiGLU epilogue (wgrt.linear_ggml_swiglu): weight rows
// interleave gate and up (row 2i gate i, row 2i + 1 up i); out[m, i] =
// silu(gate) * up, out being [M, n / 2].
override HAS_SWIGLU: bool = false;
// The decode GEMV's RoPE epilogue (wgrt.linear_ggml_split_rope): columns
// [0, split2) are query and key heads of head_dim elements, rotated in
// adjacent pairs (2i, 2i + 1) by rope_cos/rope_sin[m, i] (the table rows of
// x's positions); columns [split2, n), the values, as they are.
override HAS_ROPE: bool = false;

struct Params {
  m: u32,          // live rows of x
  n: u32,          // output features (weight rows), all outputs together
  k: u32,          // input features, a multiple of 32
  row_words: u32,  // words per weight row
  eps: f32,        // RMSNorm epsilon (HAS_NORM)
  split1: u32,
  split2: u32,
  head_dim: u32,   // HAS_ROPE
  out_col0: u32,
  out_cols: u32,
  x_eps: f32,      // x_quant's (linear/x_dq8.wgsl), the GEMVs'
  pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
// Binding 1, the weights, is declared by each kernel (as u32 words, or as
// vec4<u32> words by gemv_planar.wgsl).
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> params: Params;
@group(0) @binding(5) var<storage, read> norm_w: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> residual: array<f32>;
@group(0) @binding(7) var<storage, read_write> out1: array<f32>;
@group(0) @binding(8) var<storage, read_write> out2: array<f32>;
// Bindings 9 and 10, the RoPE tables, come with linear/gemv_rope.wgsl, which
// only the HAS_ROPE GEMV includes: the others bind 8 storage buffers, as
// many as WebGPU's default limits allow.

// HAS_SWIGLU: silu(gate) * up of weight rows n (gate, even) and n + 1 (up)
// into out[m, n / 2] of the [M, N / 2] result.
fn store_swiglu(m: u32, n: u32, gate: f32, up: f32) {
  out[m * (params.n / 2u) + n / 2u] = swiglu(gate, up);
}

// Stores acc (already scaled by the norm) for row m, column n, with bias and residual.
fn store_result(m: u32, n: u32, acc: f32) {
  var r = acc;
  if (HAS_BIAS) { r += bias[params.out_col0 + n]; }
  store_at(m, n, r);
}

// Stores r for row m, column n into the output holding column n (plus the residual).
fn store_at(m: u32, n: u32, r_in: f32) {
  var r = r_in;
  if (n < params.split1) {
    let i = m * params.out_cols + params.out_col0 + n;
    if (HAS_RESIDUAL) { r += residual[i]; }
    out[i] = r;
  } else if (n < params.split2) {
    out1[m * (params.split2 - params.split1) + n - params.split1] = r;
  } else {
    out2[m * (params.n - params.split2) + n - params.split2] = r;
  }
}
