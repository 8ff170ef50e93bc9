// X_DQ8: x requantized per row to int8 and back before the product, as
// ExecuTorch's 8da4w linears compute (choose_qparams_affine ASYMMETRIC over
// the row, qmin -128, qmax 127, then quantize_affine -> dequantize_affine;
// qdq/choose_qparams.wgsl and linear/dq8_rows.wgsl are those ops alone):
//   lo = min(min(row), 0), hi = max(max(row), 0)
//   scale = max((hi - lo) / 255, x_eps), zp = clamp(-128 - round(lo / scale), -128, 127)
//   x' = (clamp(round(x * (1 / scale)) + zp, -128, 127) - zp) * scale
// With HAS_NORM the row is RMS-normalized first (x * rsqrt(mean(x^2) + eps)
// * norm_w, as et_vk.rms_norm): the rounding needs the normalized values, so
// the norm scale is applied to x, not to the results.
// The importer declares WG, HAS_NORM, x and norm_w (arrays of vec4<f32>) and
// params with k, eps and x_eps; imports the prelude and common/reduce.wgsl.

override X_DQ8: bool = false;

// Element group i (a vec4) of a row after the norm (rn: the row's norm scale).
fn x_dq8_normed(v: vec4<f32>, i: u32, rn: f32) -> vec4<f32> {
  if (HAS_NORM) { return (v * rn) * norm_w[i]; }
  return v;
}

// (norm scale, scale, 1 / scale, zero point) of x row m. Every invocation of
// the workgroup calls it (uniform control flow) and gets the result.
fn x_dq8_row(m: u32, tid: u32) -> vec4<f32> {
  let groups = params.k / 4u;
  let base = m * groups;
  var rn = 1.0;
  if (HAS_NORM) {
    var squares = 0.0;
    for (var i = tid; i < groups; i += WG) {
      let v = x[base + i];
      squares += dot(v, v);
    }
    rn = inverseSqrt(workgroup_sum(squares, tid, WG) / f32(params.k) + params.eps);
  }
  var lo = 0.0;
  var hi = 0.0;
  for (var i = tid; i < groups; i += WG) {
    let v = x_dq8_normed(x[base + i], i, rn);
    lo = min(lo, min(min(v.x, v.y), min(v.z, v.w)));
    hi = max(hi, max(max(v.x, v.y), max(v.z, v.w)));
  }
  lo = -workgroup_max(-lo, tid, WG);  // negation is exact
  hi = workgroup_max(hi, tid, WG);
  let scale = max(div_rounded(hi - lo, 255.0), params.x_eps);
  let zp = clamp(-128.0 - round(div_rounded(lo, scale)), -128.0, 127.0);
  return vec4<f32>(rn, scale, div_rounded(1.0, scale), zp);
}

// Element group i of a row requantized by its x_dq8_row parameters p.
fn x_dq8(v: vec4<f32>, i: u32, p: vec4<f32>) -> vec4<f32> {
  let q = clamp(round(x_dq8_normed(v, i, p.x) * p.z) + p.w, vec4<f32>(-128.0), vec4<f32>(127.0));
  return (q - p.w) * p.y;
}
