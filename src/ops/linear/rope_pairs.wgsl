// The prefill half of wgrt.linear_ggml_split_rope: RoPE in place on the
// query and key outputs its GEMM wrote ([M, q_width] and [M, k_width], heads
// of head_dim), adjacent pairs (2i, 2i + 1) of a head rotated by
// cos/sin[m, i] (as in rope/apply_rotary_emb.wgsl, which reads and writes
// separate tensors). One invocation per pair; 2D-folded workgroups.
//! import common/prelude.wgsl

override WG: u32 = 256;  // linear_ggml.cpp's kWorkgroup (passing it there is pending: the default)

struct RopeParams {
  m: u32,
  q_width: u32,
  k_width: u32,
  head_dim: u32,
}

@group(0) @binding(0) var<storage, read_write> q: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> k: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read> cos_t: array<f32>;
@group(0) @binding(3) var<storage, read> sin_t: array<f32>;
@group(0) @binding(4) var<uniform> params: RopeParams;

fn rotate(p: vec2<f32>, row: u32, e: u32) -> vec2<f32> {
  let t = row * (params.head_dim / 2u) + (e % params.head_dim) / 2u;
  let c = cos_t[t];
  let s = sin_t[t];
  return vec2<f32>(p.x * c - p.y * s, p.x * s + p.y * c);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = flat_group(wid, nwg) * WG + tid;
  let q_pairs = params.m * params.q_width / 2u;
  let k_pairs = params.m * params.k_width / 2u;
  if (t < q_pairs) {
    q[t] = rotate(q[t], (2u * t) / params.q_width, (2u * t) % params.q_width);
  } else if (t < q_pairs + k_pairs) {
    let u = t - q_pairs;
    k[u] = rotate(k[u], (2u * u) / params.k_width, (2u * u) % params.k_width);
  }
}
