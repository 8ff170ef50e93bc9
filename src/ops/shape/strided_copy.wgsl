// The strided copy of 32-bit elements (with strided_index.wgsl): f32, and
// i32 (the GPU form of i64) tensors.
//! import shape/strided_index.wgsl

@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

fn copy_element(src_at: u32, dst_at: u32) { dst[dst_at] = src[src_at]; }
