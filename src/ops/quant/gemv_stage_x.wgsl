// x staged in workgroup memory as f32, for gemv.wgsl and gemv_planar.wgsl
// (after quant/gemv_skeleton.wgsl, whose WG it uses).
//
// The kernel declares `xs`, workgroup vec4s, 9 per 32-element unit (8 of x
// and one padding vec4, so that lanes reading different units at the same
// offset hit different banks; read straight from storage, lanes 128 bytes
// apart touch one cache line each).
//
// Stages units c0 .. c0 + cu of the x row starting at vec4 xb into xs (zeros
// when !live), multiplied by the norm weight with HAS_NORM; returns this
// invocation's share of the row's sum of squares. Call from uniform control
// flow: it has barriers before (the previous chunk is consumed) and after.
fn stage_x(c0: u32, cu: u32, xb: u32, live: bool, tid: u32) -> f32 {
  var squares = 0.0;
  workgroupBarrier();
  for (var i = tid; i < cu * 8u; i += WG) {
    var xv = vec4<f32>(0.0);
    if (live) { xv = x[xb + c0 * 8u + i]; }
    if (HAS_NORM) {
      squares += dot(xv, xv);
      xv *= norm_w[c0 * 8u + i];
    }
    xs[(i / 8u) * 9u + i % 8u] = xv;
  }
  workgroupBarrier();
  return squares;
}
