// The dynamic int8 activation quantization of et_vk.linear_dq8ca_q4gsw
// (8da4w): each row of x quantized with its own scale and zero point
// (from torchao.choose_qparams_affine) and dequantized again, exactly as the
// CPU graph's quantize_affine -> dequantize_affine pair:
//   q = clamp(round(x * (1 / scale)) + zp, -128, 127),  x' = f32(q - zp) * scale
// 1 / scale is made correctly rounded (torch divides in f32).
//! import common/prelude.wgsl

override WG: u32 = 256;  // the C++'s kWorkgroup passes it
override ZP_INT8: bool = false;  // zero points int8 (packed four to a word), else int32

struct Params {
  count: u32,
  k: u32,
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> scales: array<f32>;
@group(0) @binding(2) var<storage, read> zps: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;

fn zero_point(row: u32) -> i32 {
  if (ZP_INT8) { return bitcast<i32>(zps[row / 4u] << (24u - 8u * (row % 4u))) >> 24u; }
  return bitcast<i32>(zps[row]);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = flat_group(wid, nwg) * WG + lid;
  if (i >= p.count) { return; }
  let row = i / p.k;
  let s = scales[row];
  let inv = div_rounded(1.0, s);
  let zp = zero_point(row);
  let q = i32(clamp(round(x[i] * inv) + f32(zp), -128.0, 127.0));
  out[i] = f32(q - zp) * s;
}
