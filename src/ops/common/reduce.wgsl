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
