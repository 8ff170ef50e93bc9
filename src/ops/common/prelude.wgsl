// Shared WGSL helpers, for shaders that import common/prelude.wgsl
// among their sources (OpContext::pipeline with several paths).

// The flat index of a workgroup whose grid may be 2D-folded (gpu/workgroups.h:
// counts past the per-dimension limit spill into y).
fn flat_group(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.y * nwg.x + wid.x;
}

fn div_up(a: u32, b: u32) -> u32 {
  return (a + b - 1u) / b;
}

// silu(gate) * up, as wgrt.swiglu computes it (elementwise/binary.wgsl).
fn swiglu(gate: f32, up: f32) -> f32 {
  return gate / (1.0 + exp(-gate)) * up;
}

// The f32 with these bits: how shaders write infinities and NaN. A call, not
// bitcast<f32>(constant): WGSL rejects a constant expression whose value is
// not finite (Chromium's compiler enforces that; naga lets it pass).
fn f32_bits(bits: u32) -> f32 {
  return bitcast<f32>(bits);
}

// a / b correctly rounded, as torch's f32 division (WGSL's / may be off by
// 2.5 ulp): one Newton correction of the quotient.
fn div_rounded(a: f32, b: f32) -> f32 {
  let q = a / b;
  let r = fma(-q, b, a);
  return fma(r, 1.0 / b, q);
}
