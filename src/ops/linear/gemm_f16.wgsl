// Precision prelude of linear/gemm.wgsl (needs shader-f16): f16 operands in
// workgroup memory and packed f16 multiply-adds. With MatmulPrecision F16
// the f16 sums cover gemm_f16_span() products (gemm.wgsl's ACC_UNITS) and
// are then added into f32 accumulators; with F16Acc (the seeds'
// f16-accumulate variant, an opt-in) they run over the whole K: the error
// grows with K, and the sums must stay below 65504.
enable f16;
alias FT = f16;

// An f32 in ws[i] (gemm.wgsl, after its K loop) as f16s: its fraction in
// two parts (22 bits) and its exponent (exact), so that any f32, however
// large, comes back within 2^-22 of itself.
fn put_f32(i: u32, v: f32) {
  let f = frexp(v);
  let hi = f16(f.fract);
  ws[i] = vec4<f16>(hi, f16(f.fract - f32(hi)), f16(f32(f.exp)), 0.0h);
}
fn get_f32(i: u32) -> f32 {
  let s = ws[i];
  return ldexp(f32(s.x) + f32(s.y), i32(s.z));
}
