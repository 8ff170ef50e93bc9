// Prelude of flash_attention.wgsl and sdpa_decode.wgsl: f16 cache rows (the
// opt-in f16 KV cache), each vec4 of a row stored as two packed words (no
// shader-f16 needed); flash attention only reads.
@group(0) @binding(2) var<storage, read_write> k_cache: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read_write> v_cache: array<vec2<u32>>;
fn load_k(i: u32) -> vec4<f32> { return vec4<f32>(unpack2x16float(k_cache[i].x), unpack2x16float(k_cache[i].y)); }
fn load_v(i: u32) -> vec4<f32> { return vec4<f32>(unpack2x16float(v_cache[i].x), unpack2x16float(v_cache[i].y)); }
fn store_kv(i: u32, k: vec4<f32>, v: vec4<f32>) {
  k_cache[i] = vec2<u32>(pack2x16float(k.xy), pack2x16float(k.zw));
  v_cache[i] = vec2<u32>(pack2x16float(v.xy), pack2x16float(v.zw));
}
