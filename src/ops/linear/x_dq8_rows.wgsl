// The prefill side of x_quant (linear/x_dq8.wgsl) and of a fused RMSNorm: x
// rows (normalized with HAS_NORM) requantized (QUANT) into out, which the
// GEMMs then read as their x. One workgroup per row. (The decode GEMVs
// normalize and requantize while they stage x.)
//! import common/prelude.wgsl
//! import common/reduce.wgsl
//! import linear/x_dq8.wgsl

override WG: u32 = 256;  // linear_ggml.cpp's kWorkgroup
override HAS_NORM: bool = false;
override QUANT: bool = true;  // false: normalized rows as they are

struct Params {
  m: u32,      // rows
  k: u32,      // row length, a multiple of 4
  eps: f32,    // the norm's
  x_eps: f32,  // the quantization's
}

@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> norm_w: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let m = flat_group(wid, nwg);
  if (m >= params.m) { return; }  // uniform: the whole workgroup
  let p = x_dq8_row(m, tid);
  let base = m * (params.k / 4u);
  for (var i = tid; i < params.k / 4u; i += WG) {
    if (QUANT) {
      out[base + i] = x_dq8(x[base + i], i, p);
    } else {
      out[base + i] = x_dq8_normed(x[base + i], i, p.x);
    }
  }
}
