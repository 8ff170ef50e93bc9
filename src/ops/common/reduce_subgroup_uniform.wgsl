// reduce_subgroup.wgsl's lanes_sum and lanes_sum4 (see there), for shader
// compilers that enforce WGSL's uniformity analysis on barriers (browsers'
// Tint; gpu::native::strict_uniformity()). The subgroup size counted with
// subgroupAdd is not uniform to that analysis, so where reduce_subgroup.wgsl
// returns early when a group fits one subgroup, here every invocation passes
// both barriers whatever the size: two more barriers per call when it fits.
// Call them from uniform control flow: every invocation of the workgroup.

var<workgroup> reduce_scratch: array<f32, 256>;

fn lanes_sum(v: f32, tid: u32, lanes: u32) -> f32 {
  let sg = subgroupAdd(1u);
  var s = v;
  for (var o = min(lanes, sg) / 2u; o > 0u; o /= 2u) {
    s += subgroupShuffleXor(s, o);
  }
  let spans = lanes > sg;
  workgroupBarrier();
  if (spans && tid % sg == 0u) { reduce_scratch[tid / sg] = s; }
  workgroupBarrier();
  var t = s;
  if (spans) {
    t = 0.0;
    if (tid % lanes == 0u) {
      for (var i = 0u; i < lanes / sg; i++) { t += reduce_scratch[tid / sg + i]; }
    }
  }
  return t;
}

var<workgroup> reduce_scratch4: array<vec4<f32>, 256>;

fn lanes_sum4(v: vec4<f32>, tid: u32, lanes: u32) -> vec4<f32> {
  let sg = subgroupAdd(1u);
  var s = v;
  for (var o = min(lanes, sg) / 2u; o > 0u; o /= 2u) {
    s += subgroupShuffleXor(s, o);
  }
  let spans = lanes > sg;
  workgroupBarrier();
  if (spans && tid % sg == 0u) { reduce_scratch4[tid / sg] = s; }
  workgroupBarrier();
  var t = s;
  if (spans) {
    t = vec4<f32>(0.0);
    let first = (tid / lanes) * (lanes / sg);
    for (var i = 0u; i < lanes / sg; i++) { t += reduce_scratch4[first + i]; }
  }
  return t;
}
