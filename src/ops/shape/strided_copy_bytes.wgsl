// The strided copy of one-byte elements (with strided_index.wgsl): bool,
// int8, uint8; four to a 32-bit word. Invocations writing neighbouring bytes
// share a word, so each replaces its own byte with two atomics (clear, then
// set); the other bytes of the word are never touched.
//! import shape/strided_index.wgsl

@group(0) @binding(1) var<storage, read_write> dst: array<atomic<u32>>;

fn copy_element(src_at: u32, dst_at: u32) {
  let byte = (src[src_at / 4u] >> ((src_at % 4u) * 8u)) & 0xffu;
  let shift = (dst_at % 4u) * 8u;
  atomicAnd(&dst[dst_at / 4u], ~(0xffu << shift));
  atomicOr(&dst[dst_at / 4u], byte << shift);
}
