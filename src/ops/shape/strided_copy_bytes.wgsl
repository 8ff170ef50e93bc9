// The strided copy of one-byte elements (after strided_index.wgsl): bool,
// int8, uint8; four to a 32-bit word. Invocations writing neighbouring bytes
// share a word, so each replaces its own byte with two atomics (clear, then
// set); the other bytes of the word are never touched.

@group(0) @binding(1) var<storage, read_write> dst: array<atomic<u32>>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = (wid.y * nwg.x + wid.x) * WG + lid.x;
  if (i >= params.count) { return; }
  let at = copy_indices(i);
  let byte = (src[at.x / 4u] >> ((at.x % 4u) * 8u)) & 0xffu;
  let shift = (at.y % 4u) * 8u;
  atomicAnd(&dst[at.y / 4u], ~(0xffu << shift));
  atomicOr(&dst[at.y / 4u], byte << shift);
}
