// Causal grouped-query attention over a KV cache, f32, batch 1, in three
// passes over a chunk of query heads (sdpa.cpp splits the heads so that the
// score matrix fits one storage binding):
//   scores          scores[hl, s, c] = scale * q[s, h] . k_cache[c, h / group]
//                   for c <= start + s (later positions are never read); with
//                   a sliding window, positions c <= start + s - window score
//                   as the lowest f32 (their probability is exactly 0)
//   softmax         each score row normalised over its causal prefix [0, start + s]
//   weighted_sum    out[s, h] = sum_c p[hl, s, c] * v_cache[c, h / group]
// q, out: [S, H, D]; caches: [MAX, n, D], KV heads [kv_head0, kv_head0 + n)
// (all Hkv, or one part of caches stored in parts by heads, whose chunks
// hold only the query heads reading that part); D % 4 == 0 (vec4 rows).
// Score rows are `row_stride` (the cache's MAX) apart; row = hl * S + s.
// Workgroups may be 2D-folded (gpu/workgroups.h): the flat index is flat_group().
//! import common/prelude.wgsl
//! import norm/reduce.wgsl

// WG, the workgroup size, is norm/reduce.wgsl's override: three_pass_attention.cpp
// passes kSdpaWorkgroup for scores and weighted_sum, kSdpaSoftmaxWorkgroup (a
// power of two, for the tree reductions) for softmax.

struct Params {
  seq: u32,          // live S
  start: u32,        // start_pos: cache positions before this query block
  heads: u32,        // query heads in this chunk
  head_begin: u32,   // the chunk's first query head
  q_heads: u32,      // H
  group: u32,        // H / Hkv
  cache_heads: u32,  // n: KV heads in the bound caches
  dim4: u32,         // D / 4
  row_stride: u32,
  scale: f32,
  window: u32,       // 0: none
  kv_head0: u32,     // the bound caches' first KV head
}

@group(0) @binding(0) var<uniform> params: Params;

// scores
@group(0) @binding(1) var<storage, read> q4: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> k4: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> scores_out: array<f32>;
// softmax
@group(0) @binding(1) var<storage, read_write> probs_rw: array<f32>;
// weighted_sum
@group(0) @binding(1) var<storage, read> probs: array<f32>;
@group(0) @binding(2) var<storage, read> v4: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out4: array<vec4<f32>>;

@compute @workgroup_size(WG)
fn scores(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = flat_group(wid, nwg) * WG + lid.x;
  let context = params.start + params.seq;
  let row = t / context;
  let c = t % context;
  if (row >= params.heads * params.seq) { return; }
  let s = row % params.seq;
  if (c > params.start + s) { return; }  // causal: masked, softmax never reads it
  if (params.window > 0u && c + params.window <= params.start + s) {
    scores_out[row * params.row_stride + c] = -3.402823e38;
    return;
  }
  let h = params.head_begin + row / params.seq;
  let qb = (s * params.q_heads + h) * params.dim4;
  let kb = (c * params.cache_heads + h / params.group - params.kv_head0) * params.dim4;
  var acc = 0.0;
  for (var j = 0u; j < params.dim4; j++) {
    acc += dot(q4[qb + j], k4[kb + j]);
  }
  scores_out[row * params.row_stride + c] = acc * params.scale;
}

@compute @workgroup_size(WG)
fn softmax(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>) {
  let row = flat_group(wid, nwg);
  // No early return: every invocation must reach the barriers.
  let valid = row < params.heads * params.seq;
  let len = select(0u, params.start + row % params.seq + 1u, valid);
  let base = row * params.row_stride;
  var m = -3.402823e38;
  for (var c = lid.x; c < len; c += WG) { m = max(m, probs_rw[base + c]); }
  m = reduce_max(lid.x, m);
  var sum = 0.0;
  for (var c = lid.x; c < len; c += WG) { sum += exp(probs_rw[base + c] - m); }
  sum = reduce_sum(lid.x, sum);
  let inv = 1.0 / sum;
  for (var c = lid.x; c < len; c += WG) { probs_rw[base + c] = exp(probs_rw[base + c] - m) * inv; }
}

@compute @workgroup_size(WG)
fn weighted_sum(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = flat_group(wid, nwg) * WG + lid.x;
  if (t >= params.seq * params.heads * params.dim4) { return; }
  let d4 = t % params.dim4;
  let hl = (t / params.dim4) % params.heads;
  let s = t / (params.dim4 * params.heads);
  let h = params.head_begin + hl;
  let kvh = h / params.group - params.kv_head0;
  let base = (hl * params.seq + s) * params.row_stride;
  let len = params.start + s + 1u;
  var acc = vec4<f32>(0.0);
  for (var c = 0u; c < len; c++) {
    acc += probs[base + c] * v4[(c * params.cache_heads + kvh) * params.dim4 + d4];
  }
  out4[(s * params.q_heads + h) * params.dim4 + d4] = acc;
}
