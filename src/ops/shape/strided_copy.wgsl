// The strided copy of 32-bit elements (after strided_index.wgsl): f32, and
// i32 (the GPU form of i64) tensors.

@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (wid.y * nwg.x + wid.x) * WG + lid.x;
  if (i >= params.count) { return; }
  let at = copy_indices(i);
  dst[at.y] = src[at.x];
}
