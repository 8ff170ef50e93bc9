// Sums across invocations through workgroup memory, for adapters without
// subgroups; the same lanes_sum as reduce_subgroup.wgsl (see there). Call it
// from uniform control flow: every invocation of the workgroup.

var<workgroup> reduce_scratch: array<f32, 256>;

// The sum of v over the aligned group of `lanes` consecutive invocations
// (a power of two) that holds invocation `tid`; valid in the group's first.
fn lanes_sum(v: f32, tid: u32, lanes: u32) -> f32 {
  workgroupBarrier();
  reduce_scratch[tid] = v;
  workgroupBarrier();
  for (var stride = lanes / 2u; stride > 0u; stride /= 2u) {
    if (tid % lanes < stride) { reduce_scratch[tid] += reduce_scratch[tid + stride]; }
    workgroupBarrier();
  }
  return reduce_scratch[tid];
}

var<workgroup> reduce_scratch4: array<vec4<f32>, 256>;

// lanes_sum4 of reduce_subgroup.wgsl: the group's sum in every invocation of it.
fn lanes_sum4(v: vec4<f32>, tid: u32, lanes: u32) -> vec4<f32> {
  workgroupBarrier();
  reduce_scratch4[tid] = v;
  workgroupBarrier();
  for (var stride = lanes / 2u; stride > 0u; stride /= 2u) {
    if (tid % lanes < stride) { reduce_scratch4[tid] += reduce_scratch4[tid + stride]; }
    workgroupBarrier();
  }
  return reduce_scratch4[tid - tid % lanes];
}
