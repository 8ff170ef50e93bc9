// Rotary position embedding. Pair i of a head at sequence position s is
// rotated by the angle whose cos/sin are freqs_cos[s, i], freqs_sin[s, i]:
//   out[a] = x[a] * cos - x[b] * sin
//   out[b] = x[a] * sin + x[b] * cos
// with (a, b) = (2i, 2i+1) in the adjacent-pair convention (Meta's Llama
// reference; ggml's "normal" mode) or (i, i + D/2) when HALVES is set (the HF
// "rotate halves" convention; ggml's NEOX mode, used by Qwen, Phi-3, Gemma).
// xq [B, S, H, D] and xk [B, S, Hkv, D] in one dispatch: invocation t handles
// pair t of xq, then pair t - q_pairs of xk. 2D-folded workgroups.
//! import common/prelude.wgsl

override WG: u32 = 256;
override HALVES: bool = false;

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

@group(0) @binding(0) var<storage, read> xq: array<f32>;
@group(0) @binding(1) var<storage, read> xk: array<f32>;
@group(0) @binding(2) var<storage, read> freqs_cos: array<f32>;
@group(0) @binding(3) var<storage, read> freqs_sin: array<f32>;
@group(0) @binding(4) var<storage, read_write> xq_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> xk_out: array<f32>;
@group(0) @binding(6) var<uniform> params: Params;

// The element indices (a, b) of pair `pair` of a tensor, counted over all its heads.
fn pair_elements(pair: u32) -> vec2<u32> {
  if (HALVES) {
    let a = (pair / params.half_dim) * 2u * params.half_dim + pair % params.half_dim;
    return vec2<u32>(a, a + params.half_dim);
  }
  return vec2<u32>(2u * pair, 2u * pair + 1u);
}

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
  let t = flat_group(wid, nwg) * WG + lid.x;
  if (t < params.q_pairs) {
    let e = pair_elements(t);
    let r = rotate(vec2<f32>(xq[e.x], xq[e.y]), t, params.q_heads);
    xq_out[e.x] = r.x;
    xq_out[e.y] = r.y;
  } else if (t < params.q_pairs + params.k_pairs) {
    let p = t - params.q_pairs;
    let e = pair_elements(p);
    let r = rotate(vec2<f32>(xk[e.x], xk[e.y]), p, params.kv_heads);
    xk_out[e.x] = r.x;
    xk_out[e.y] = r.y;
  }
}
