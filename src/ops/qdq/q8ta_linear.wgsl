// 8-bit linear with integer accumulation, as the Vulkan backend fuses PT2E's
// static per-tensor int8 activations and per-channel symmetric int8 weights:
//   acc[m, n] = sum_k (xq[m, k] - x_zp) * w[n, k]            (exact, i32)
//   y         = f32(acc) * x_scale * w_scale[n] + bias[n]    (relu if asked)
//   OUT_INT8:  q = clamp(round(y * out_inv_scale) + out_zp, -128, 127)
//   else:      y (f32)
// Weights are int8 [N, K_padded] (rows a multiple of four bytes), x int8
// [M, K]; int8 tensors are packed four to a u32 word. Four
// consecutive outputs per invocation, so int8 outputs are written a word at
// a time.
//! import qdq/int8.wgsl
//! import common/prelude.wgsl

override WG: u32 = 64;  // the C++'s kWorkgroup passes it
override OUT_INT8: bool = true;
override HAS_BIAS: bool = false;
override RELU: bool = false;

struct Params {
  m: u32,
  n: u32,
  k: u32,
  w_row_words: u32,
  x_zp: i32,
  out_zp: i32,
  x_scale: f32,
  pad3: u32,
  out_inv_scale: f32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> w_scales: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
@group(0) @binding(5) var<uniform> p: Params;

// x[m, k] as an integer, less the zero point.
fn xq(i: u32) -> i32 {
  return sbyte(x[i / 4u], i % 4u) - p.x_zp;
}

fn output(row: u32, col: u32) -> f32 {
  var acc = 0;
  let xrow = row * p.k;
  let wrow = col * p.w_row_words;
  let words = p.k / 4u;
  for (var j = 0u; j < words; j++) {
    let wv = w[wrow + j];
    let base = xrow + j * 4u;
    acc += xq(base) * sbyte(wv, 0u) + xq(base + 1u) * sbyte(wv, 1u) + xq(base + 2u) * sbyte(wv, 2u) +
           xq(base + 3u) * sbyte(wv, 3u);
  }
  for (var k = words * 4u; k < p.k; k++) {
    acc += xq(xrow + k) * sbyte(w[wrow + k / 4u], k % 4u);
  }
  var y = f32(acc) * p.x_scale * w_scales[col];
  if (HAS_BIAS) { y += bias[col]; }
  if (RELU) { y = max(y, 0.0); }
  return y;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let first = (flat_group(wid, nwg) * WG + lid) * 4u;
  let total = p.m * p.n;
  if (first >= total) { return; }
  var word = 0u;
  for (var j = 0u; j < 4u; j++) {
    let i = first + j;
    if (i >= total) { break; }
    let y = output(i / p.n, i % p.n);
    if (OUT_INT8) {
      word |= requantize_byte(y, p.out_inv_scale, p.out_zp) << (8u * j);
    } else {
      out[i] = bitcast<u32>(y);
    }
  }
  if (OUT_INT8) { out[first / 4u] = word; }
}
