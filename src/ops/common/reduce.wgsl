// Reductions built on lanes_sum, which the device's common/reduce_*.wgsl
// variant (imported below) defines along with reduce_scratch.
//! import common/reduce_{reduce}.wgsl

// The sum of v over the whole workgroup of `size` invocations, in every
// invocation. Call from uniform control flow.
fn workgroup_sum(v: f32, tid: u32, size: u32) -> f32 {
  let s = lanes_sum(v, tid, size);
  workgroupBarrier();
  if (tid == 0u) { reduce_scratch[0] = s; }
  workgroupBarrier();
  return reduce_scratch[0];
}

// The maximum of v over the whole workgroup of `size` invocations (a power
// of two, at most 256), in every invocation. Call from uniform control flow.
fn workgroup_max(v: f32, tid: u32, size: u32) -> f32 {
  workgroupBarrier();
  reduce_scratch[tid] = v;
  workgroupBarrier();
  for (var stride = size / 2u; stride > 0u; stride /= 2u) {
    if (tid < stride) { reduce_scratch[tid] = max(reduce_scratch[tid], reduce_scratch[tid + stride]); }
    workgroupBarrier();
  }
  let m = reduce_scratch[0];
  workgroupBarrier();
  return m;
}
