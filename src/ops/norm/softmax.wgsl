// Softmax (or log-softmax with LOG) of f32 x along one dim, numerically stable:
// out = exp(x - max) / sum(exp(x - max)), log: x - max - log(sum(exp(x - max))).
// The tensor is viewed as [outer, D, inner] (inner = 1 for the last dim, whose
// rows are contiguous); a row is the D values at one (outer, inner), strided by
// inner. One workgroup per row (2D-folded), WG threads striding the row
// (reduce.wgsl, imported, holds WG and the reductions).
//! import norm/reduce.wgsl
//! import common/prelude.wgsl

override LOG: bool = false;

struct Params {
  rows: u32,   // outer * inner
  d: u32,
  inner: u32,
  pad: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = flat_group(wid, nwg);
  if (row >= params.rows) { return; }  // uniform per workgroup: barriers stay uniform
  let inner = params.inner;
  let base = (row / inner) * params.d * inner + row % inner;
  var m = -3.402823e38;
  for (var j = lid.x; j < params.d; j += WG) { m = max(m, x[base + j * inner]); }
  m = reduce_max(lid.x, m);
  var s = 0.0;
  for (var j = lid.x; j < params.d; j += WG) { s += exp(x[base + j * inner] - m); }
  s = reduce_sum(lid.x, s);
  if (LOG) {
    let shift = m + log(s);
    for (var j = lid.x; j < params.d; j += WG) { out[base + j * inner] = x[base + j * inner] - shift; }
  } else {
    let scale = 1.0 / s;
    for (var j = lid.x; j < params.d; j += WG) { out[base + j * inner] = exp(x[base + j * inner] - m) * scale; }
  }
}
