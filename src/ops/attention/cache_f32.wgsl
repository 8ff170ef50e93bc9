// Prelude of flash_attention.wgsl and sdpa_decode.wgsl: f32 cache rows, read
// and written as vec4s (flash attention only reads).
@group(0) @binding(2) var<storage, read_write> k_cache: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> v_cache: array<vec4<f32>>;
fn load_k(i: u32) -> vec4<f32> { return k_cache[i]; }
fn load_v(i: u32) -> vec4<f32> { return v_cache[i]; }
fn store_kv(i: u32, k: vec4<f32>, v: vec4<f32>) {
  k_cache[i] = k;
  v_cache[i] = v;
}
