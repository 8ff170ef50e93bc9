// out[i] = silu(y[2i]) * y[2i + 1]: the prefill half of
// wgrt.linear_ggml_swiglu, whose GEMM (linear.wgsl) wrote the interleaved
// gate/up columns into y.
//! import common/prelude.wgsl

override WG: u32 = 256;  // linear_ggml.cpp's kWorkgroup (passing it there is pending: the default)

struct PairParams {
  count: u32,  // outputs
  _pad0: u32,
  _pad1: u32,
  _pad2: u32,
}

@group(0) @binding(0) var<storage, read> y: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: PairParams;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + tid;
  if (i < params.count) {
    let p = y[i];
    out[i] = swiglu(p.x, p.y);
  }
}
