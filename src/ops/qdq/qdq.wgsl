// ExecuTorch's quantize / dequantize (quantized_decomposed.*) on contiguous
// tensors, with torch's reference numerics:
//   quantize   q = clamp(round(x * inv_scale) + zp, qmin, qmax)   (per tensor, per channel)
//              q = clamp(round(x * inv_scale + zp), qmin, qmax)   (per token: zp before rounding)
//   dequantize x = f32(q - zp) * scale
// round() is WGSL's round-half-to-even, as torch.round. Per tensor, inv_scale
// is f32(1 / scale) computed in double on the host (torch's Python float);
// from a scale tensor it is the f32 reciprocal, made correctly rounded here.
// Integers of one byte (int8, uint8) are packed four to a u32 word; each
// invocation handles four consecutive elements, so it writes whole words.
//! import common/prelude.wgsl

override WG: u32 = 64;  // the C++'s kWorkgroup passes it
override QUANT: bool = true;       // f32 -> integer; false: integer -> f32
override INT_TYPE: u32 = 0u;       // 0 int8, 1 uint8, 2 int32
override ZP_FIRST: bool = false;   // per token: add the zero point before rounding
override TENSOR_PARAMS: bool = false;  // scale / zero point from tensors (else Params)
override HAS_ZP: bool = true;      // dequantize_per_channel takes zero_points = None
override ZP_INT8: bool = false;    // zero-point tensor of int8 (packed), else int32

struct Params {
  count: u32,
  inner: u32,     // elements sharing one scale: per channel the dims after the axis, per token the last dim
  channels: u32,  // number of scales (1 per tensor)
  qmin: i32,
  qmax: i32,
  zp: i32,
  inv_scale: f32,
  scale: f32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read> scales: array<f32>;
@group(0) @binding(2) var<storage, read> zps: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
@group(0) @binding(4) var<uniform> p: Params;

struct QParams { scale: f32, inv: f32, zp: i32 }

// Correctly rounded 1 / s (one Newton step on the hardware reciprocal), as torch's 1.0 / scales.
fn reciprocal(s: f32) -> f32 {
  let r = 1.0 / s;
  return fma(fma(-s, r, 1.0), r, r);
}

fn qparams(i: u32) -> QParams {
  if (!TENSOR_PARAMS) { return QParams(p.scale, p.inv_scale, p.zp); }
  let c = (i / p.inner) % p.channels;
  let s = scales[c];
  var zp = 0;
  if (HAS_ZP) {
    if (ZP_INT8) {
      zp = bitcast<i32>(zps[c / 4u] << (24u - 8u * (c % 4u))) >> 24u;
    } else {
      zp = bitcast<i32>(zps[c]);
    }
  }
  return QParams(s, reciprocal(s), zp);
}

fn quantize(x: f32, q: QParams) -> i32 {
  var v: f32;
  if (ZP_FIRST) {
    v = round(x * q.inv + f32(q.zp));
  } else {
    v = round(x * q.inv) + f32(q.zp);
  }
  return i32(clamp(v, f32(p.qmin), f32(p.qmax)));
}

fn load_int(i: u32) -> i32 {
  if (INT_TYPE == 2u) { return bitcast<i32>(src[i]); }
  let byte = (src[i / 4u] >> ((i % 4u) * 8u)) & 0xffu;
  if (INT_TYPE == 1u) { return i32(byte); }
  return (bitcast<i32>(byte << 24u)) >> 24u;  // sign-extend int8
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let first = (flat_group(wid, nwg) * WG + lid) * 4u;
  if (first >= p.count) { return; }
  if (QUANT) {
    var word = 0u;
    for (var k = 0u; k < 4u; k++) {
      let i = first + k;
      if (i >= p.count) { break; }
      let q = quantize(bitcast<f32>(src[i]), qparams(i));
      if (INT_TYPE == 2u) {
        out[i] = bitcast<u32>(q);
      } else {
        word |= (bitcast<u32>(q) & 0xffu) << (k * 8u);
      }
    }
    if (INT_TYPE != 2u) { out[first / 4u] = word; }
    return;
  }
  for (var k = 0u; k < 4u; k++) {
    let i = first + k;
    if (i >= p.count) { break; }
    let q = qparams(i);
    out[i] = bitcast<u32>(f32(load_int(i) - q.zp) * q.scale);
  }
}
