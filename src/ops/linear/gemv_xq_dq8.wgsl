// The decode GEMVs' staging of x for linears with x_quant (the {xq} slot of
// linear/gemv_skeleton.wgsl; gemv_xq_none.wgsl is the plain one): each x row
// requantized per row (linear/x_dq8.wgsl), the norm included, as it is
// staged; the results then take no RMS scale.
//! import linear/x_dq8.wgsl

const XQ_DQ8: bool = true;

// Each live x row's requantization (x_dq8_row), for stage_value.
var<workgroup> xq_rows: array<vec4<f32>, XROWS_MAX>;

// xq_rows for the workgroup's live rows (from x row m). Call first, from
// uniform control flow.
fn prepare_x_rows(wid: vec3<u32>, nwg: vec3<u32>, m: u32, tid: u32) {
  let rows = gemv_rows(wid, nwg);
  for (var r = 0u; r < rows; r++) {
    let p = x_dq8_row(m + r, tid);
    if (tid == 0u) { xq_rows[r] = p; }
  }
  workgroupBarrier();
}

// Element group i of x row r of the workgroup as staged.
fn stage_value(v: vec4<f32>, i: u32, r: u32) -> vec4<f32> {
  return x_dq8(v, i, xq_rows[r]);
}
