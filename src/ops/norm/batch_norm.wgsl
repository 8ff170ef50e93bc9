// Inference batch norm (aten._native_batch_norm_legit_no_training) on
// contiguous [N, C, ...] f32: out = (x - mean[c]) * rsqrt(var[c] + eps) *
// weight[c] + bias[c], one element per invocation (2D-folded workgroups).
//! import common/prelude.wgsl

override WG: u32 = 256;  // the C++'s kWorkgroup passes it
override HAS_WEIGHT: bool = true;
override HAS_BIAS: bool = true;

struct Params {
  count: u32,
  channels: u32,
  inner: u32,  // elements per channel plane (product of the dims after C)
  eps: f32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read> mean: array<f32>;
@group(0) @binding(4) var<storage, read> variance: array<f32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;
@group(0) @binding(6) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid;
  if (i >= params.count) { return; }
  let c = (i / params.inner) % params.channels;
  var v = (x[i] - mean[c]) * inverseSqrt(variance[c] + params.eps);
  if (HAS_WEIGHT) { v *= weight[c]; }
  if (HAS_BIAS) { v += bias[c]; }
  out[i] = v;
}
