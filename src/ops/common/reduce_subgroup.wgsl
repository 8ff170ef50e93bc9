// Sums across invocations, for adapters with subgroups (wgpu-native's native
// Subgroup feature: no `enable subgroups;`, and the adapter reports no size,
// so the size is counted in the shader). Shaders import
// common/reduce_{reduce}.wgsl: this file or reduce_workgroup.wgsl, the
// device's choice (OpContext::pipeline); both define lanes_sum with the same
// meaning, and common/reduce.wgsl builds on it.
// Workgroups are at most 256 invocations, and subgroups are taken to be runs
// of consecutive local_invocation_index (as on every Vulkan driver for 1D
// workgroups).
// Call lanes_sum from uniform control flow: every invocation of the workgroup.

var<workgroup> reduce_scratch: array<f32, 256>;

// The sum of v over the aligned group of `lanes` consecutive invocations
// (a power of two) that holds invocation `tid`; valid in the group's first.
fn lanes_sum(v: f32, tid: u32, lanes: u32) -> f32 {
  let sg = subgroupAdd(1u);  // the subgroup's size: all its invocations are active here
  var s = v;
  for (var o = min(lanes, sg) / 2u; o > 0u; o /= 2u) {
    s += subgroupShuffleXor(s, o);
  }
  if (lanes <= sg) { return s; }
  // The group spans several subgroups: their sums meet in workgroup memory.
  workgroupBarrier();
  if (tid % sg == 0u) { reduce_scratch[tid / sg] = s; }
  workgroupBarrier();
  var t = 0.0;
  if (tid % lanes == 0u) {
    for (var i = 0u; i < lanes / sg; i++) { t += reduce_scratch[tid / sg + i]; }
  }
  return t;
}

var<workgroup> reduce_scratch4: array<vec4<f32>, 256>;

// The sum of v over the aligned group of `lanes` consecutive invocations
// (a power of two) that holds invocation `tid`, in every invocation of the
// group (unlike lanes_sum, whose result is valid in the group's first only).
fn lanes_sum4(v: vec4<f32>, tid: u32, lanes: u32) -> vec4<f32> {
  let sg = subgroupAdd(1u);
  var s = v;
  for (var o = min(lanes, sg) / 2u; o > 0u; o /= 2u) {
    s += subgroupShuffleXor(s, o);
  }
  if (lanes <= sg) { return s; }
  workgroupBarrier();
  if (tid % sg == 0u) { reduce_scratch4[tid / sg] = s; }
  workgroupBarrier();
  var t = vec4<f32>(0.0);
  let first = (tid / lanes) * (lanes / sg);
  for (var i = 0u; i < lanes / sg; i++) { t += reduce_scratch4[first + i]; }
  return t;
}
