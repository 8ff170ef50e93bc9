// The Vulkan backend's int8 convolutions (et_vk.q8ta_conv2d, _pw, _dw,
// _transposed) on int8 NCHW activations, integer accumulation:
//   acc = sum over taps inside the input of (x - x_zp) * w       (exact, i32;
//         taps in the padding contribute 0, as zeros of the dequantized input)
//   y   = f32(acc) * x_scale * w_scale[oc] + bias[oc], relu if asked
//   q   = clamp(round(y * out_inv_scale) + out_zp, -128, 127)
// Weight layouts, as the exporter writes them (rows padded to 4 bytes):
//   LAYOUT 0 (conv, pw, transposed): [OC, K4], k = (kh * KW + kw) * ICg + ic
//   LAYOUT 1 (depthwise):            [KH, KW, OC4], one input channel per output
// Int8 tensors are packed four to a u32 word; four consecutive outputs per
// invocation, written as one word.
//! import qdq/int8.wgsl
//! import common/prelude.wgsl

override WG: u32 = 64;  // the C++'s kWorkgroup passes it
override LAYOUT: u32 = 0u;
override TRANSPOSED: bool = false;
override HAS_BIAS: bool = false;
override RELU: bool = false;

struct Params {
  batch: u32, ic: u32, ih: u32, iw: u32,
  oc: u32, oh: u32, ow: u32, groups: u32,
  kh: u32, kw: u32, stride_y: u32, stride_x: u32,
  pad_y: u32, pad_x: u32, dil_y: u32, dil_x: u32,
  w_row: u32,  // bytes per weight row (LAYOUT 0) or per (kh, kw) slice (LAYOUT 1)
  x_zp: i32,
  out_zp: i32,
  x_scale: f32,
  out_inv_scale: f32,
  pad0: u32, pad1: u32, pad2: u32,
}

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read> w: array<u32>;
@group(0) @binding(2) var<storage, read> w_scales: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
@group(0) @binding(5) var<uniform> p: Params;

fn x_at(i: u32) -> i32 { return sbyte(x[i / 4u], i % 4u) - p.x_zp; }
fn w_at(i: u32) -> i32 { return sbyte(w[i / 4u], i % 4u); }

// The input coordinate a tap reads along one axis, or -1 outside the input.
fn tap(o: u32, k: u32, stride: u32, pad: u32, dil: u32, size: u32) -> i32 {
  if (TRANSPOSED) {
    // o = i * stride - pad + k * dil  =>  i = (o + pad - k * dil) / stride when exact
    let t = i32(o + pad) - i32(k * dil);
    if (t < 0 || t % i32(stride) != 0) { return -1; }
    let i = t / i32(stride);
    return select(-1, i, i < i32(size));
  }
  let i = i32(o * stride + k * dil) - i32(pad);
  return select(-1, i, i >= 0 && i < i32(size));
}

fn conv_at(n: u32, oc: u32, oy: u32, ox: u32) -> f32 {
  let icg = p.ic / p.groups;
  let ocg = p.oc / p.groups;
  let g = oc / ocg;
  var acc = 0;
  for (var ky = 0u; ky < p.kh; ky++) {
    let iy = tap(oy, ky, p.stride_y, p.pad_y, p.dil_y, p.ih);
    if (iy < 0) { continue; }
    for (var kx = 0u; kx < p.kw; kx++) {
      let ix = tap(ox, kx, p.stride_x, p.pad_x, p.dil_x, p.iw);
      if (ix < 0) { continue; }
      let tap_index = ky * p.kw + kx;
      if (LAYOUT == 1u) {
        let xi = ((n * p.ic + oc) * p.ih + u32(iy)) * p.iw + u32(ix);
        acc += x_at(xi) * w_at(tap_index * p.w_row + oc);
        continue;
      }
      for (var c = 0u; c < icg; c++) {
        let xi = ((n * p.ic + g * icg + c) * p.ih + u32(iy)) * p.iw + u32(ix);
        acc += x_at(xi) * w_at(oc * p.w_row + tap_index * icg + c);
      }
    }
  }
  var y = f32(acc) * p.x_scale * w_scales[oc];
  if (HAS_BIAS) { y += bias[oc]; }
  if (RELU) { y = max(y, 0.0); }
  return y;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let first = (flat_group(wid, nwg) * WG + lid) * 4u;
  let total = p.batch * p.oc * p.oh * p.ow;
  if (first >= total) { return; }
  var word = 0u;
  for (var j = 0u; j < 4u; j++) {
    let i = first + j;
    if (i >= total) { break; }
    let ox = i % p.ow;
    let oy = (i / p.ow) % p.oh;
    let oc = (i / (p.ow * p.oh)) % p.oc;
    let n = i / (p.ow * p.oh * p.oc);
    word |= requantize_byte(conv_at(n, oc, oy, ox), p.out_inv_scale, p.out_zp) << (8u * j);
  }
  out[first / 4u] = word;
}
