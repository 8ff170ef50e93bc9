// x_quant: x requantized per row to int8 and back before the product, as
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
// params with k, eps and x_eps; imports the prelude and common/reduce.wgsl
// (for reduce_scratch4).

// Element group i (a vec4) of a row after the norm (rn: the row's norm scale).
fn x_dq8_normed(v: vec4<f32>, i: u32, rn: f32) -> vec4<f32> {
  if (HAS_NORM) { return (v * rn) * norm_w[i]; }
  return v;
}

// The sum of v.x and the maxima of v.y and v.z over the workgroup, in every
// invocation: one tree for the three (reduce_scratch4 of the device's
// common/reduce_*.wgsl). Uniform control flow.
fn x_dq8_reduce(v: vec4<f32>, tid: u32) -> vec4<f32> {
  workgroupBarrier();
  reduce_scratch4[tid] = v;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
    if (tid < stride) {
      let a = reduce_scratch4[tid];
      let b = reduce_scratch4[tid + stride];
      reduce_scratch4[tid] = vec4<f32>(a.x + b.x, max(a.yz, b.yz), 0.0);
    }
    workgroupBarrier();
  }
  let r = reduce_scratch4[0];
  workgroupBarrier();
  return r;
}

// (norm scale, scale, 1 / scale, zero point) of x row m. One pass over the
// row: the squares and the range of x * norm_w, which the norm scale rn > 0
// then scales (rn * min(x * w) is min((x * rn) * w) up to an ulp: the
// requantization's steps move by as little). Every invocation of the
// workgroup calls it (uniform control flow) and gets the result.
fn x_dq8_row(m: u32, tid: u32) -> vec4<f32> {
  let groups = params.k / 4u;
  let base = m * groups;
  var acc = vec4<f32>(0.0);  // squares, -min(x * w, 0), max(x * w, 0)
  for (var i = tid; i < groups; i += WG) {
    var v = x[base + i];
    acc.x += dot(v, v);
    if (HAS_NORM) { v *= norm_w[i]; }
    acc.y = max(acc.y, -min(min(v.x, v.y), min(v.z, v.w)));
    acc.z = max(acc.z, max(max(v.x, v.y), max(v.z, v.w)));
  }
  let t = x_dq8_reduce(acc, tid);
  var rn = 1.0;
  if (HAS_NORM) { rn = inverseSqrt(t.x / f32(params.k) + params.eps); }
  let lo = -t.y * rn;
  let hi = t.z * rn;
  let scale = max(div_rounded(hi - lo, 255.0), params.x_eps);
  let zp = clamp(-128.0 - round(div_rounded(lo, scale)), -128.0, 127.0);
  return vec4<f32>(rn, scale, div_rounded(1.0, scale), zp);
}

// Element group i of a row requantized by its x_dq8_row parameters p.
fn x_dq8(v: vec4<f32>, i: u32, p: vec4<f32>) -> vec4<f32> {
  let q = clamp(round(x_dq8_normed(v, i, p.x) * p.z) + p.w, vec4<f32>(-128.0), vec4<f32>(127.0));
  return (q - p.w) * p.y;
}
