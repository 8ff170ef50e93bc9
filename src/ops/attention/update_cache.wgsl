// cache[dst_offset + i] = value[i] for i < count: writes S new positions of a
// KV cache ([1, MAX, H, D] rows) at start_pos. 2D-folded workgroups.

override WG: u32 = 256;

struct Params {
  count: u32,
  dst_offset: u32,
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<storage, read> value: array<f32>;
@group(0) @binding(1) var<storage, read_write> cache: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (wid.y * nwg.x + wid.x) * WG + lid.x;
  if (i >= params.count) { return; }
  cache[params.dst_offset + i] = value[i];
}
