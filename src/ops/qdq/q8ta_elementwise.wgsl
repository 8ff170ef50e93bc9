// The Vulkan backend's int8 elementwise ops on int8 tensors of one shape,
// each dequantize -> op -> quantize with torch's reference numerics:
//   OP 0 q8ta_add:           y = (a - a_zp) * a_scale + alpha * ((b - b_zp) * b_scale)
//   OP 1 q8ta_relu:          y = max((a - a_zp) * a_scale, 0)
//   OP 2 q8ta_pixel_shuffle: y = (a[gathered] - a_zp) * a_scale (NCHW, upscale r)
//   q = clamp(round(y * out_inv_scale) + out_zp, -128, 127)
// Four consecutive outputs per invocation, written as one packed word.
//! import qdq/int8.wgsl
//! import common/prelude.wgsl

override WG: u32 = 64;  // the C++'s kWorkgroup passes it
override OP: u32 = 0u;

struct Params {
  count: u32,
  a_zp: i32,
  b_zp: i32,
  out_zp: i32,
  a_scale: f32,
  b_scale: f32,
  alpha: f32,
  out_inv_scale: f32,
  // pixel shuffle: output C, H, W and the upscale factor
  oc: u32,
  oh: u32,
  ow: u32,
  r: u32,
}

@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;

fn value(i: u32) -> f32 {
  if (OP == 2u) {
    let ox = i % p.ow;
    let oy = (i / p.ow) % p.oh;
    let c = (i / (p.ow * p.oh)) % p.oc;
    let n = i / (p.ow * p.oh * p.oc);
    let ic = (c * p.r + oy % p.r) * p.r + ox % p.r;
    let ih = p.oh / p.r;
    let iw = p.ow / p.r;
    let src = ((n * p.oc * p.r * p.r + ic) * ih + oy / p.r) * iw + ox / p.r;
    return f32(sbyte(a[src / 4u], src % 4u) - p.a_zp) * p.a_scale;
  }
  let ya = f32(sbyte(a[i / 4u], i % 4u) - p.a_zp) * p.a_scale;
  if (OP == 1u) { return max(ya, 0.0); }
  let yb = f32(sbyte(b[i / 4u], i % 4u) - p.b_zp) * p.b_scale;
  return ya + p.alpha * yb;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let first = (flat_group(wid, nwg) * WG + lid) * 4u;
  if (first >= p.count) { return; }
  var word = 0u;
  for (var j = 0u; j < 4u; j++) {
    let i = first + j;
    if (i >= p.count) { break; }
    word |= requantize_byte(value(i), p.out_inv_scale, p.out_zp) << (8u * j);
  }
  out[first / 4u] = word;
}
