// Workgroup-wide reductions shared by the norm shaders (they import
// this file). WG is the workgroup size, a power of two; every invocation of
// the workgroup must make the call, since they meet at barriers. The closing
// barrier lets the next reduction reuse `partial`.

override WG: u32 = 128;

var<workgroup> partial: array<f32, WG>;

fn reduce_sum(lid: u32, v: f32) -> f32 {
  partial[lid] = v;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
    if (lid < stride) { partial[lid] += partial[lid + stride]; }
    workgroupBarrier();
  }
  let result = partial[0];
  workgroupBarrier();
  return result;
}

fn reduce_max(lid: u32, v: f32) -> f32 {
  partial[lid] = v;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
    if (lid < stride) { partial[lid] = max(partial[lid], partial[lid + stride]); }
    workgroupBarrier();
  }
  let result = partial[0];
  workgroupBarrier();
  return result;
}
