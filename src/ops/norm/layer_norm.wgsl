// LayerNorm over rows of D f32 values (aten.native_layer_norm): two passes for
// stability, mean = sum(x) / D, then var = sum((x - mean)^2) / D (biased, as
// torch); out = (x - mean) * rstd * weight + bias with rstd = 1 / sqrt(var + eps).
// mean[row] and rstd[row] are written too. HAS_WEIGHT / HAS_BIAS: without
// them the binding is a placeholder. One workgroup per row (2D-folded);
// reduce.wgsl, imported, holds WG and reduce_sum.
// GROUPS > 0 makes it aten.native_group_norm: a row is one group of one
// sample ([C / GROUPS, hw] values) and weight and bias are per channel.
//! import norm/reduce.wgsl
//! import common/prelude.wgsl

override HAS_WEIGHT: bool = true;
override HAS_BIAS: bool = true;
override GROUPS: u32 = 0u;

struct Params {
  rows: u32,
  d: u32,
  eps: f32,
  hw: u32,  // group norm: elements per channel
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<storage, read_write> mean_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> rstd_out: array<f32>;
@group(0) @binding(6) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = flat_group(wid, nwg);
  if (row >= params.rows) { return; }  // uniform per workgroup: barriers stay uniform
  let base = row * params.d;
  let inv_d = 1.0 / f32(params.d);
  var s = 0.0;
  for (var i = lid.x; i < params.d; i += WG) { s += x[base + i]; }
  let mean = reduce_sum(lid.x, s) * inv_d;
  var sq = 0.0;
  for (var i = lid.x; i < params.d; i += WG) {
    let c = x[base + i] - mean;
    sq += c * c;
  }
  let rstd = inverseSqrt(reduce_sum(lid.x, sq) * inv_d + params.eps);
  var first_channel = 0u;
  // max(): WGSL rejects x % 0 when the divisor is a (pipeline) constant, even untaken.
  if (GROUPS > 0u) { first_channel = (row % max(GROUPS, 1u)) * (params.d / params.hw); }
  for (var i = lid.x; i < params.d; i += WG) {
    var v = (x[base + i] - mean) * rstd;
    var c = i;
    if (GROUPS > 0u) { c = first_channel + i / params.hw; }
    if (HAS_WEIGHT) { v *= weight[c]; }
    if (HAS_BIAS) { v += bias[c]; }
    out[base + i] = v;
  }
  if (lid.x == 0u) {
    mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
}
