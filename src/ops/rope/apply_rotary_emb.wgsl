// Rotary position embedding, adjacent-pair convention (Meta's Llama
// reference): each pair (x[2i], x[2i+1]) of a head at sequence position s is
// rotated by the angle whose cos/sin are freqs_cos[s, i], freqs_sin[s, i]:
//   out[2i]   = x[2i] * cos - x[2i+1] * sin
//   out[2i+1] = x[2i] * sin + x[2i+1] * cos
// xq [B, S, H, D] and xk [B, S, Hkv, D] in one dispatch: invocation t handles
// pair t of xq, then pair t - q_pairs of xk. 2D-folded workgroups.

override WG: u32 = 256;

struct Params {
  q_pairs: u32,
  k_pairs: u32,
  half_dim: u32,   // D / 2
  seq: u32,        // live S
  q_heads: u32,
  kv_heads: u32,
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<storage, read> xq: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read> xk: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read> freqs_cos: array<f32>;
@group(0) @binding(3) var<storage, read> freqs_sin: array<f32>;
@group(0) @binding(4) var<storage, read_write> xq_out: array<vec2<f32>>;
@group(0) @binding(5) var<storage, read_write> xk_out: array<vec2<f32>>;
@group(0) @binding(6) var<uniform> params: Params;

fn rotate(x: vec2<f32>, pair: u32, heads: u32) -> vec2<f32> {
  let i = pair % params.half_dim;
  let s = (pair / params.half_dim / heads) % params.seq;
  let c = freqs_cos[s * params.half_dim + i];
  let n = freqs_sin[s * params.half_dim + i];
  return vec2<f32>(x.x * c - x.y * n, x.x * n + x.y * c);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = (wid.y * nwg.x + wid.x) * WG + lid.x;
  if (t < params.q_pairs) {
    xq_out[t] = rotate(xq[t], t, params.q_heads);
  } else if (t < params.q_pairs + params.k_pairs) {
    let p = t - params.q_pairs;
    xk_out[p] = rotate(xk[p], p, params.kv_heads);
  }
}
