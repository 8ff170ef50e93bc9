// What the two prefill flash attention kernels (flash_attention.wgsl,
// flash_attention_tiled.wgsl) share: their parameters and the q and out
// bindings (the caches come from cache_f32.wgsl or cache_f16.wgsl).

struct Params {
  seq: u32,          // live S
  start: u32,        // cache positions before this query block
  q_heads: u32,      // H
  group: u32,        // H / Hkv
  kv_heads: u32,     // Hkv
  scale: f32,
  window: u32,       // 0: none
  pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> q4: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> out4: array<vec4<f32>>;

// Whether the query at absolute position pos sees cache position c (causal,
// and inside the sliding window when there is one).
fn visible(c: u32, pos: u32) -> bool {
  return c <= pos && (params.window == 0u || c + params.window > pos);
}
