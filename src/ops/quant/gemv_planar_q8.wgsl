// The decode GEMV for weights in the planar layout with x quantized to int8
// in workgroup memory, so that a block's 32 products are 8 packed 4 x 8-bit
// dot products (dot4I8Packed: one instruction on GPUs with integer dot
// products) instead of ~130 float and integer instructions: at decode the
// f32 kernel's nibble decoding, not the memory, bounds it on large GPUs.
// Sources before this one: common/prelude.wgsl, a common/reduce_*.wgsl,
// common/reduce.wgsl, quant/linear_io.wgsl, quant/gemv_skeleton.wgsl,
// quant/gemv_planar_weights.wgsl.
//
// x is quantized per 32-element unit, as ggml's q8_1 does for its integer
// GEMVs: scale = max|x| / 127, q = round(x / scale). Each unit keeps its scale,
// the sum of its q (Q4_0's -8 offset: sum((w - 8) q) = sum(w q) - 8 sum(q)) and
// the f32 sum of x (Q4_1's min). The error this adds is one rounding of x to
// 8 bits per unit (tests/ops/test_quant_linear.cpp states its bound).
// With HAS_NORM the staged x is x * norm_w; the RMS scale applies to results.
//
// The whole x row is staged at once where it fits (K <= 6144: no barriers
// inside the weight loop), else in chunks of XQ_UNITS units.

const XQ_UNITS: u32 = 192u;  // 9 KiB: with the reductions' scratch, under the 16 KiB WebGPU guarantees
var<workgroup> xq: array<vec4<u32>, 576>;   // per unit: quants 0-15, quants 16-31, (scale, sum q, sum x, -)

// Units c0 .. c0 + cu of the x row at vec4 xb into xq (zeros when !live),
// one unit per invocation; returns this invocation's share of the row's sum
// of squares. Uniform control flow (barriers before and after).
fn stage_xq(c0: u32, cu: u32, xb: u32, live: bool, tid: u32) -> f32 {
  var squares = 0.0;
  workgroupBarrier();
  for (var u = tid; u < cu; u += 256u) {
    var v: array<vec4<f32>, 8>;
    var top = 0.0;
    var xsum = 0.0;
    for (var i = 0u; i < 8u; i++) {
      var xv = vec4<f32>(0.0);
      if (live) { xv = x[xb + (c0 + u) * 8u + i]; }
      if (HAS_NORM) {
        squares += dot(xv, xv);
        xv *= norm_w[(c0 + u) * 8u + i];
      }
      v[i] = xv;
      let a = abs(xv);
      top = max(top, max(max(a.x, a.y), max(a.z, a.w)));
      xsum += (xv.x + xv.y) + (xv.z + xv.w);
    }
    let scale = top / 127.0;
    let inv = select(0.0, 127.0 / top, top > 0.0);
    var words: array<u32, 8>;
    var qsum = 0i;
    for (var i = 0u; i < 8u; i++) {
      let q = vec4<i32>(round(v[i] * inv));
      qsum += (q.x + q.y) + (q.z + q.w);
      let b = vec4<u32>(bitcast<vec4<u32>>(q) & vec4<u32>(255u)) << vec4<u32>(0u, 8u, 16u, 24u);
      words[i] = (b.x | b.y) | (b.z | b.w);
    }
    xq[u * 3u] = vec4<u32>(words[0], words[1], words[2], words[3]);
    xq[u * 3u + 1u] = vec4<u32>(words[4], words[5], words[6], words[7]);
    xq[u * 3u + 2u] = vec4<u32>(bitcast<u32>(scale), bitcast<u32>(qsum), bitcast<u32>(xsum), 0u);
  }
  workgroupBarrier();
  return squares;
}

// One block's dot product with staged unit u: quants qa (and qb, Q8_0's
// second half), weight scale s (and Q4_1's min).
fn block_dot_q8(qa: vec4<u32>, qb: vec4<u32>, s: vec2<f32>, u: u32) -> f32 {
  let xa = xq[u * 3u];
  let xb = xq[u * 3u + 1u];
  let st = xq[u * 3u + 2u];
  let xscale = bitcast<f32>(st.x);
  if (QTYPE == 1008u) {
    let t = (dot4I8Packed(qa.x, xa.x) + dot4I8Packed(qa.y, xa.y)) + (dot4I8Packed(qa.z, xa.z) + dot4I8Packed(qa.w, xa.w)) +
            (dot4I8Packed(qb.x, xb.x) + dot4I8Packed(qb.y, xb.y)) + (dot4I8Packed(qb.z, xb.z) + dot4I8Packed(qb.w, xb.w));
    return s.x * xscale * f32(t);
  }
  // Low nibbles: elements 0-15 (xa); high nibbles: 16-31 (xb). Nibbles 0..15 are valid int8.
  let m = vec4<u32>(0x0f0f0f0fu);
  let lo = qa & m;
  let hi = (qa >> vec4<u32>(4u)) & m;
  let t = (dot4I8Packed(lo.x, xa.x) + dot4I8Packed(lo.y, xa.y)) + (dot4I8Packed(lo.z, xa.z) + dot4I8Packed(lo.w, xa.w)) +
          (dot4I8Packed(hi.x, xb.x) + dot4I8Packed(hi.y, xb.y)) + (dot4I8Packed(hi.z, xb.z) + dot4I8Packed(hi.w, xb.w));
  if (QTYPE == 1003u) { return s.x * xscale * f32(t) + s.y * bitcast<f32>(st.z); }
  return s.x * xscale * f32(t - 8i * bitcast<i32>(st.y));
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let slot = gemv_slot(wid, nwg, tid);
  let lane = slot.lane;
  let row_live = slot.live && slot.n < params.n;
  let units = params.k / 32u;
  let xb = slot.m * (params.k / 4u);

  var acc = 0.0;
  var squares = 0.0;
  for (var c0 = 0u; c0 < units; c0 += XQ_UNITS) {
    let cu = min(XQ_UNITS, units - c0);
    squares += stage_xq(c0, cu, xb, slot.live, tid);
    // UPL blocks per lane loaded together, then their dot products.
    for (var u0 = 0u; u0 < cu; u0 += UPL * LANES) {
      let b = load_planar_blocks(slot.n, c0, cu, u0, lane, row_live);
      for (var i = 0u; i < UPL; i++) {
        let u = u0 + lane + i * LANES;
        if (row_live && u < cu) { acc += block_dot_q8(b.qa[i], b.qb[i], b.sc[i], u); }
      }
    }
  }
  gemv_finish(slot, acc, squares, tid);
}
