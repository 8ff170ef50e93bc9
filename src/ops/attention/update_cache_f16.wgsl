// The f16 KV cache's write: cache[dst_offset + i] = f16(value[i]) for
// i < count, two values per invocation packed into one word (count and
// dst_offset are even: rows are D % 4 == 0 elements). Params as in
// update_cache.wgsl. 2D-folded workgroups.

override WG: u32 = 256;

struct Params {
  count: u32,
  dst_offset: u32,
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<storage, read> value: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> cache: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (wid.y * nwg.x + wid.x) * WG + lid.x;
  if (2u * i >= params.count) { return; }
  cache[params.dst_offset / 2u + i] = pack2x16float(value[i]);
}
