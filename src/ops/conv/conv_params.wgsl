// The parameters every convolution kernel takes (ConvParams in conv2d.cpp),
// and the epilogue they share. Imported by conv2d.wgsl and conv_igemm.wgsl,
// which declare `bias`, `residual` and `p`.

override HAS_BIAS: u32 = 0u;
override HAS_RESIDUAL: u32 = 0u;  // wgrt.conv2d_fused: a tensor of the output's shape added before the clamp

struct Params {
  n: u32, cin: u32, h: u32, w: u32,
  cout: u32, oh: u32, ow: u32, groups: u32,
  kh: u32, kw: u32, stride_h: i32, stride_w: i32,
  pad_h: i32, pad_w: i32, dil_h: i32, dil_w: i32,
  cin_g: u32, cout_g: u32, k_total: u32, m_total: u32,
  out_min: f32, out_max: f32, row_tiles: u32, chunks: u32,
  splits: u32, slices_per_split: u32, cout_g4: u32, pad: u32,
  // The output channels of one dispatch (conv2d.wgsl; a weight above the
  // binding limit comes in runs of output channels, a dispatch per run, or
  // per run's part in one group). main_gemm: groups g0 .. g0 + wid.z,
  // channels co0 .. co0 + co_count of each; main_depthwise: channels co0 ..
  // co0 + co_count. The weight binding starts at output channel w_row0.
  // Unsplit: 0, 0 (main_gemm) or cout_g (main_depthwise: cout), 0.
  g0: u32, co0: u32, co_count: u32, w_row0: u32,
}

// Bias, residual and clamp of the output element `at` (channel co).
fn finish(v: f32, co: u32, at: u32) -> f32 {
  var r = v;
  if (HAS_BIAS != 0u) { r += bias[co]; }
  if (HAS_RESIDUAL != 0u) { r += residual[at]; }
  return clamp(r, p.out_min, p.out_max);
}
