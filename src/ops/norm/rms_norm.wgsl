// out[r, :] = x[r, :] * rsqrt(mean(x[r, :]^2) + eps) * weight, for f32 rows
// of length D. One workgroup per row (2D-folded), WG threads striding the row
// (reduce.wgsl, imported, holds WG and reduce_sum).
//! import norm/reduce.wgsl
//! import common/prelude.wgsl

struct Params {
  rows: u32,
  d: u32,
  eps: f32,
  pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> weight: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = flat_group(wid, nwg);
  // No early return: every invocation must reach the barriers.
  let valid = row < params.rows;
  let base = row * params.d;
  var sum = 0.0;
  if (valid) {
    for (var i = lid.x; i < params.d; i += WG) {
      let v = x[base + i];
      sum += v * v;
    }
  }
  let total = reduce_sum(lid.x, sum);
  if (!valid) { return; }
  let scale = inverseSqrt(total / f32(params.d) + params.eps);
  for (var i = lid.x; i < params.d; i += WG) {
    out[base + i] = x[base + i] * scale * weight[i];
  }
}
