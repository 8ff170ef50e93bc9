// et_vk.linear_dW: the weight gradient of a linear, dW[n, k] =
// sum_m d_out[m, n] * x[m, k] over the M rows of d_out [..., N] and
// x [..., K] (ExecuTorch's reference: d_out.reshape(-1, N).t() @ x.reshape(-1, K)).
// One invocation per output element; 2D-folded.
//! import common/prelude.wgsl

override WG: u32 = 64;

struct Params {
  m: u32,
  n: u32,
  k: u32,
  pad: u32,
}

@group(0) @binding(0) var<storage, read> d_out: array<f32>;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> dw: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid.x;
  if (i >= p.n * p.k) { return; }
  let n = i / p.k;
  let k = i % p.k;
  var acc = 0.0;
  for (var m = 0u; m < p.m; m++) {
    acc += d_out[m * p.n + n] * x[m * p.k + k];
  }
  dw[i] = acc;
}
