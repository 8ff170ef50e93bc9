// Prelude of flash_attention.wgsl: f32 cache rows, read as vec4s.
@group(0) @binding(2) var<storage, read> k_cache: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> v_cache: array<vec4<f32>>;
fn load_k(i: u32) -> vec4<f32> { return k_cache[i]; }
fn load_v(i: u32) -> vec4<f32> { return v_cache[i]; }
