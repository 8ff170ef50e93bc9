// Scale and zero point of each contiguous block of x (per token: one block
// per row; per tensor: one block), in f32 with torch's reference numerics.
// MODE 0, torchao.choose_qparams_affine ASYMMETRIC, and
// quantized_decomposed.choose_qparams.tensor (torch's determine_qparams):
//   lo = min(min(block), 0), hi = max(max(block), 0)
//   scale = max((hi - lo) / f32(qmax - qmin), eps)
//   zp = clamp(qmin - round(lo / scale), qmin, qmax)
// MODE 1, choose_qparams_affine SYMMETRIC:
//   scale = max(max(-lo, hi) / (f32(qmax - qmin) / 2), eps)
//   zp = (qmax + qmin + 1) / 2 (truncated)
// MODE 2, quantized_decomposed.choose_qparams_per_token_asymmetric (XNNPACK's
// rule, qmin/qmax -128/127 whatever the dtype):
//   scale = max((hi - lo) / 255, eps); dlo = lo / scale; dhi = hi / scale
//   zp = round(clamp(qmin + dlo + qmax + dhi > 0 ? qmin - dlo : qmax - dhi, qmin, qmax))
// round() is half to even in WGSL, as torch's. Divisions are made correctly
// rounded (WGSL's may be off by 2.5 ulp), as torch's are. One workgroup
// reduces four consecutive blocks, so an int8 zero-point output is written a
// whole word at a time.
//! import common/prelude.wgsl
//! import norm/reduce.wgsl

// WG (norm/reduce.wgsl's override) is choose_qparams.cpp's kWorkgroup.

override MODE: u32 = 0u;
override ZP_INT8: bool = false;  // zero points int8 (else int32)

struct Params {
  blocks: u32,
  block_len: u32,
  qmin: i32,
  qmax: i32,
  eps: f32,
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> scales: array<f32>;
@group(0) @binding(2) var<storage, read_write> zps: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let group = flat_group(wid, nwg);
  var word = 0u;
  for (var j = 0u; j < 4u; j++) {
    let block = group * 4u + j;
    if (block >= p.blocks) { break; }  // uniform across the workgroup
    var lo = 0.0;
    var hi = 0.0;
    for (var i = lid; i < p.block_len; i += WG) {
      let v = x[block * p.block_len + i];
      lo = min(lo, v);
      hi = max(hi, v);
    }
    let lo_b = -reduce_max(lid, -lo);  // the min, exactly (negation is exact)
    let hi_b = reduce_max(lid, hi);
    if (lid == 0u) {
      let range = f32(p.qmax - p.qmin);
      var scale: f32;
      var zp: i32;
      if (MODE == 1u) {
        scale = max(div_rounded(max(-lo_b, hi_b), range / 2.0), p.eps);
        zp = (p.qmax + p.qmin + 1) / 2;
      } else if (MODE == 2u) {
        scale = max(div_rounded(hi_b - lo_b, range), p.eps);
        let dlo = div_rounded(lo_b, scale);
        let dhi = div_rounded(hi_b, scale);
        let qmin = f32(p.qmin);
        let qmax = f32(p.qmax);
        let z = select(qmax - dhi, qmin - dlo, (qmin + dlo) + (qmax + dhi) > 0.0);
        zp = i32(round(clamp(z, qmin, qmax)));
      } else {
        scale = max(div_rounded(hi_b - lo_b, range), p.eps);
        zp = i32(clamp(f32(p.qmin) - round(div_rounded(lo_b, scale)), f32(p.qmin), f32(p.qmax)));
      }
      scales[block] = scale;
      if (ZP_INT8) {
        word |= (bitcast<u32>(zp) & 0xffu) << (8u * j);
      } else {
        zps[block] = bitcast<u32>(zp);
      }
    }
  }
  if (ZP_INT8 && lid == 0u && group * 4u < p.blocks) { zps[group] = word; }
}
