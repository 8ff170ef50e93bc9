// Writes S new positions of a KV cache ([1, MAX, H, D] rows) at start_pos:
// the write of one part of a cache stored in parts by heads (memory_plan.h),
// heads [h0, h0 + n), each position's row of n * D values taken from the
// value's row of H * D at h0 * D. A cache in one part has n = H: element i
// then lands at dst_offset + i. 2D-folded workgroups.
//! import common/prelude.wgsl

override WG: u32 = 256;

struct Params {
  count: u32,         // S * part_row
  dst_offset: u32,    // start_pos * part_row
  part_row: u32,      // n * D
  value_row: u32,     // H * D
  value_offset: u32,  // h0 * D
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<storage, read> value: array<f32>;
@group(0) @binding(1) var<storage, read_write> cache: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid.x;
  if (i >= params.count) { return; }
  let pos = i / params.part_row;
  cache[params.dst_offset + i] = value[pos * params.value_row + params.value_offset + i % params.part_row];
}
