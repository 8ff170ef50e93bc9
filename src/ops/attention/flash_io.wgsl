// What the two prefill flash attention kernels (flash_attention.wgsl,
// flash_attention_tiled.wgsl) share: their parameters and the q and out
// bindings (the caches come from cache_f32.wgsl or cache_f16.wgsl).
//! import common/prelude.wgsl

// The caches bound hold KV heads [head0 / group, + cache_heads): all Hkv,
// or one part of caches stored in parts by heads (one dispatch per part,
// over the query heads [head0, head0 + heads) that read it).
struct Params {
  seq: u32,          // live S
  start: u32,        // cache positions before this query block
  q_heads: u32,      // H
  group: u32,        // H / Hkv
  cache_heads: u32,  // KV heads in the bound caches
  scale: f32,
  window: u32,       // 0: none
  head0: u32,        // the dispatch's first query head
  heads: u32,        // its query heads (cache_heads * group)
  base: u32,         // the sequence's first cache row (its slot's; 0 with one sequence)
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> q4: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> out4: array<vec4<f32>>;

// Query row q0 + r of head h, vec4 d4 of D4 (each kernel's override),
// scaled; zeros past the live rows.
fn load_q(q0: u32, r: u32, h: u32, d4: u32) -> vec4<f32> {
  if (q0 + r >= params.seq) { return vec4<f32>(0.0); }
  return q4[((q0 + r) * params.q_heads + h) * D4 + d4] * params.scale;
}

// Whether the query at cache row pos sees cache row c (its own sequence's,
// causal, and inside the sliding window when there is one).
fn visible(c: u32, pos: u32) -> bool {
  return c >= params.base && c <= pos && (params.window == 0u || c + params.window > pos);
}

// The query block of workgroup (wid, nwg) when blocks hold `rows` queries:
// head h (kvh: its KV head's index in the bound caches), queries q0 .. q0 + rows - 1, the last blocks (the
// most keys) first; the cache positions any of them sees, [first, last].
// live is false for a folded grid's spare workgroups (uniform per workgroup).
struct FlashBlock {
  live: bool,
  h: u32,
  kvh: u32,
  q0: u32,
  first: u32,
  last: u32,
}

fn flash_block(wid: vec3<u32>, nwg: vec3<u32>, rows: u32) -> FlashBlock {
  var b: FlashBlock;
  let blocks = (params.seq + rows - 1u) / rows;
  let g = flat_group(wid, nwg);
  b.live = g < blocks * params.heads;
  if (!b.live) { return b; }
  b.h = params.head0 + g % params.heads;
  b.kvh = (b.h - params.head0) / params.group;
  b.q0 = (blocks - 1u - g / params.heads) * rows;
  b.last = params.start + min(b.q0 + rows, params.seq) - 1u;
  b.first = params.base;
  if (params.window > 0u && params.start + b.q0 + 1u > params.base + params.window) {
    b.first = params.start + b.q0 + 1u - params.window;
  }
  return b;
}
