// The other RoPE conventions ExecuTorch's Vulkan backend fuses, one element
// per invocation (2D-folded workgroups).
//
// main_hf (et_vk.apply_rotary_emb_hf): Hugging Face's rotate-half on
// [B, S, H, D] q and k; the first `rot` dims of a head rotate, the rest pass:
//   out[i] = x[i] cos[s, i] - x[i + rot/2] sin[s, i]   (i < rot/2)
//   out[i] = x[i] cos[s, i] + x[i - rot/2] sin[s, i]   (rot/2 <= i < rot)
// with s counted from `start` in the [max_seq, rot] tables. q and k share one
// dispatch: invocation t is element t of q, then element t - q_count of k.
//
// main_interleaved (et_vk.apply_rotary_emb_interleaved): x [B, N, C] holds
// (real, imag) pairs; freqs_cis, flattened to [N, C], (cos, sin) pairs.
//! import common/prelude.wgsl

override WG: u32 = 256;  // the C++'s kWorkgroup passes it

struct Params {
  q_count: u32, k_count: u32, d: u32, rot: u32,
  seq: u32, q_heads: u32, k_heads: u32, start: u32,
}

@group(0) @binding(0) var<storage, read> xq: array<f32>;
@group(0) @binding(1) var<storage, read> xk: array<f32>;
@group(0) @binding(2) var<storage, read> freqs_cos: array<f32>;
@group(0) @binding(3) var<storage, read> freqs_sin: array<f32>;
@group(0) @binding(4) var<storage, read_write> q_out: array<f32>;
@group(0) @binding(5) var<storage, read_write> k_out: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;

fn index(wid: vec3<u32>, lid: u32, nwg: vec3<u32>) -> u32 { return flat_group(wid, nwg) * WG + lid; }

@compute @workgroup_size(WG)
fn main_hf(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
           @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = index(wid, lid, nwg);
  let is_q = t < p.q_count;
  if (t >= p.q_count + p.k_count) { return; }
  let e = select(t - p.q_count, t, is_q);
  let heads = select(p.k_heads, p.q_heads, is_q);
  let i = e % p.d;
  var v: f32;
  var partner: f32;
  if (is_q) { v = xq[e]; } else { v = xk[e]; }
  if (i < p.rot) {
    let half = p.rot / 2u;
    let pe = select(e - half, e + half, i < half);
    if (is_q) { partner = xq[pe]; } else { partner = xk[pe]; }
    let row = p.start + (e / p.d / heads) % p.seq;
    let c = freqs_cos[row * p.rot + i];
    let s = freqs_sin[row * p.rot + i];
    v = v * c + select(partner, -partner, i < half) * s;
  }
  if (is_q) { q_out[e] = v; } else { k_out[e] = v; }
}

// Interleaved: q_count = numel(x), d = C, seq = N.
@group(0) @binding(0) var<storage, read> x: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read> freqs_cis: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec2<f32>>;
@group(0) @binding(3) var<uniform> pi: Params;

@compute @workgroup_size(WG)
fn main_interleaved(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
                    @builtin(num_workgroups) nwg: vec3<u32>) {
  let pair = index(wid, lid, nwg);
  let half = pi.d / 2u;
  if (pair >= pi.q_count / 2u) { return; }
  let f = freqs_cis[((pair / half) % pi.seq) * half + pair % half];
  let v = x[pair];
  out[pair] = vec2<f32>(v.x * f.x - v.y * f.y, v.x * f.y + v.y * f.x);
}
