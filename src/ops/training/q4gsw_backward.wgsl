// et_vk.linear_q4gsw_backward: the input gradient through a frozen 4-bit
// linear, d_x[m, k] = sum_n d_out[m, n] * W[n, k] with W dequantized as
// linear_q4gsw does: W[n, k] = (nibble - 8) * scales[k / group_size, n],
// weight u8 [N, K/2], even k in the low nibble. W is formed in f32 first,
// as the reference's dequantize_affine does. One invocation per output.
//! import common/prelude.wgsl

override WG: u32 = 64;

struct Params {
  m: u32,
  n: u32,
  k: u32,
  group_size: u32,
  scales_stride: u32,  // scales row length (N, or N padded)
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<storage, read> d_out: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<u32>;
@group(0) @binding(2) var<storage, read> scales: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid.x;
  if (i >= p.m * p.k) { return; }
  let m = i / p.k;
  let k = i % p.k;
  let shift = 4u * (k % 2u);
  let scale_row = (k / p.group_size) * p.scales_stride;
  var acc = 0.0;
  for (var n = 0u; n < p.n; n++) {
    let b = n * (p.k / 2u) + k / 2u;
    let byte = (weight[b / 4u] >> (8u * (b % 4u))) & 255u;
    let w = f32(i32((byte >> shift) & 15u) - 8) * scales[scale_row + n];
    acc += d_out[m * p.n + n] * w;
  }
  dx[i] = acc;
}
