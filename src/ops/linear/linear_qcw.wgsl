// Weight-only quantized linear with one scale per output channel
// (VulkanQuantizer's weight-only flow): aten._weight_int8pack_mm (int8
// weights [N, K]) and et_vk.linear_qcs4w (4-bit weights [N, K/2], byte =
// (w[2j] + 8) << 4 | (w[2j+1] + 8), K padded to even).
//   out[m, n] = (sum_k x[m, k] * w[n, k]) * scales[n]
// Four consecutive outputs per invocation (a row of x and up to four weight
// rows); bytes are read from u32 words. A weight above the binding limit
// comes in runs of rows, one dispatch each: n counts the run's rows, w holds
// only them, and output column (and scale) row0 + n of out_cols (unsplit:
// row0 = 0, out_cols = n).
//! import common/prelude.wgsl

override WG: u32 = 64;  // the C++'s kWorkgroup passes it
override W_BITS: u32 = 8u;

struct Params {
  m: u32,
  n: u32,
  k: u32,
  w_row_bytes: u32,  // bytes per weight row (K for 8-bit, K/2 rounded up for 4-bit)
  row0: u32,
  out_cols: u32,
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

fn byte_at(i: u32) -> u32 { return (w[i / 4u] >> ((i % 4u) * 8u)) & 0xffu; }

fn weight(n: u32, k: u32) -> f32 {
  if (W_BITS == 8u) {
    return f32(bitcast<i32>(byte_at(n * p.w_row_bytes + k) << 24u) >> 24u);
  }
  let b = byte_at(n * p.w_row_bytes + k / 2u);
  let nibble = select(b & 0xfu, b >> 4u, k % 2u == 0u);  // even k in the high nibble
  return f32(i32(nibble) - 8);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let first = (flat_group(wid, nwg) * WG + lid) * 4u;
  let total = p.m * p.n;
  for (var j = 0u; j < 4u; j++) {
    let i = first + j;
    if (i >= total) { return; }
    let row = i / p.n;
    let col = i % p.n;
    var acc = 0.0;
    for (var k = 0u; k < p.k; k++) {
      acc += x[row * p.k + k] * weight(col, k);
    }
    out[row * p.out_cols + p.row0 + col] = acc * scales[p.row0 + col];
  }
}
