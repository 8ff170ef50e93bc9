// The decode GEMVs' staging of x as it is (the {xq} slot of
// linear/gemv_skeleton.wgsl; gemv_xq_dq8.wgsl requantizes it): times the
// norm weight with HAS_NORM, the RMS scale then applying to the results.

const XQ_DQ8: bool = false;

// Nothing to prepare.
fn prepare_x_rows(wid: vec3<u32>, nwg: vec3<u32>, m: u32, tid: u32) {}

// Element group i of x row r of the workgroup as staged.
fn stage_value(v: vec4<f32>, i: u32, r: u32) -> vec4<f32> {
  if (HAS_NORM) { return v * norm_w[i]; }
  return v;
}
