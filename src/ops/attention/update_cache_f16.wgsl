// The f16 KV cache's write: as update_cache.wgsl (Params alike), each value
// stored as f16, two per invocation packed into one word (every count and
// offset is even: rows are D % 4 == 0 elements). 2D-folded workgroups.
//! import common/prelude.wgsl

override WG: u32 = 256;

struct Params {
  count: u32,
  dst_offset: u32,
  part_row: u32,
  value_row: u32,
  value_offset: u32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<storage, read> value: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> cache: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid.x;
  let e = 2u * i;
  if (e >= params.count) { return; }
  let at = (e / params.part_row) * params.value_row + params.value_offset + e % params.part_row;
  cache[params.dst_offset / 2u + i] = pack2x16float(value[at / 2u]);
}
