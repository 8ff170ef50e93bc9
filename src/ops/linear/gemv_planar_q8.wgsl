// The decode GEMV for weights in the planar layout with x quantized to int8
// in workgroup memory, so that a block's 32 products are packed 4 x 8-bit
// dot products (dot4I8Packed: one instruction on GPUs with integer dot
// products) instead of ~130 float and integer instructions: at decode the
// f32 kernel's nibble decoding, not the memory, bounds it on large GPUs.
// Imports (below) the skeleton, which brings the prelude, the reductions and
// linear_io.wgsl, and the planar weights.
//
// x is quantized per 32-element unit, as ggml's q8_1 does for its integer
// GEMVs: scale = max|x| / 127, q = round(x / scale). With XQ_LEVELS = 2 (the
// default) the rounding's remainder x - q * scale is quantized again with a
// scale 254 times finer, and a block's products are those of both levels
// (twice the dot products, still a fraction of the f32 decode): the error
// falls from half a step of max|x| / 127 to half a step of max|x| / 32258,
// below f16's. Each unit keeps its scale, the sums of its q per level (Q4_0's
// -8 offset: sum((w - 8) q) = sum(w q) - 8 sum(q)) and the f32 sum of x
// (Q4_1's min). tests/ops/test_quant_linear.cpp states the bounds.
// With HAS_NORM the staged x is x * norm_w; the RMS scale applies to results.
//
// The whole x row is staged at once where it fits (K <= 4096: no barriers
// inside the weight loop), else in chunks of XQ_UNITS units.
//! import linear/gemv_skeleton.wgsl
//! import linear/gemv_planar_weights.wgsl

override XQ_LEVELS: u32 = 2u;  // 1 or 2 roundings of x
const XQ_UNITS: u32 = 128u;
// Per unit: level 1's quants 0-15 and 16-31, level 2's, then
// (scale, level 1's sum of q, sum of x, level 2's sum of q). 10 KiB: with the
// reductions' scratch, under the 16 KiB WebGPU guarantees.
const XQ_STRIDE: u32 = 5u;
var<workgroup> xq: array<vec4<u32>, 640>;  // XQ_UNITS * XQ_STRIDE

// The four int8 lanes of q packed into one word.
fn pack_i8(q: vec4<i32>) -> u32 {
  let b = vec4<u32>(bitcast<vec4<u32>>(q) & vec4<u32>(255u)) << vec4<u32>(0u, 8u, 16u, 24u);
  return (b.x | b.y) | (b.z | b.w);
}

// Quantizes unit u of the x row at vec4 xb (zeros when !live) into xq at
// unit `at`; returns the sum of its squares with HAS_NORM, added from 0 in
// element order. (Staging one vec4 per invocation, the 8 of a unit meeting
// through subgroup shuffles, measured slower on the H200: gate/up 17.7 ->
// 27.3 us, bench/RESULTS.md 2026-12-02.)
fn quantize_unit(xb: u32, u: u32, at_unit: u32, live: bool) -> f32 {
  var squares = 0.0;
  var v: array<vec4<f32>, 8>;
  var top = 0.0;
  var xsum = 0.0;
  for (var i = 0u; i < 8u; i++) {
    var xv = vec4<f32>(0.0);
    if (live) { xv = x[xb + u * 8u + i]; }
    if (HAS_NORM) {
      squares += dot(xv, xv);
      xv *= norm_w[u * 8u + i];
    }
    v[i] = xv;
    let a = abs(xv);
    top = max(top, max(max(a.x, a.y), max(a.z, a.w)));
    xsum += (xv.x + xv.y) + (xv.z + xv.w);
  }
  let scale = top / 127.0;
  let inv = select(0.0, 127.0 / top, top > 0.0);
  var words: array<u32, 16>;
  var qsum = vec2<i32>(0i);
  for (var i = 0u; i < 8u; i++) {
    let q = vec4<i32>(round(v[i] * inv));
    qsum.x += (q.x + q.y) + (q.z + q.w);
    words[i] = pack_i8(q);
    if (XQ_LEVELS == 2u) {
      // |remainder| <= scale / 2, so its quants at scale / 254 fit in int8.
      let r = vec4<i32>(clamp(round((v[i] - vec4<f32>(q) * scale) * (inv * 254.0)), vec4<f32>(-127.0),
                              vec4<f32>(127.0)));
      qsum.y += (r.x + r.y) + (r.z + r.w);
      words[8u + i] = pack_i8(r);
    }
  }
  let at = at_unit * XQ_STRIDE;
  xq[at] = vec4<u32>(words[0], words[1], words[2], words[3]);
  xq[at + 1u] = vec4<u32>(words[4], words[5], words[6], words[7]);
  if (XQ_LEVELS == 2u) {
    xq[at + 2u] = vec4<u32>(words[8], words[9], words[10], words[11]);
    xq[at + 3u] = vec4<u32>(words[12], words[13], words[14], words[15]);
  }
  xq[at + 4u] = vec4<u32>(bitcast<u32>(scale), bitcast<u32>(qsum.x), bitcast<u32>(xsum), bitcast<u32>(qsum.y));
  return squares;
}

// Units c0 .. c0 + cu of the x row at vec4 xb into xq (zeros when !live),
// one unit per invocation (WG >= XQ_UNITS); returns this invocation's share
// of the row's sum of squares. Uniform control flow (barriers before and after).
fn stage_xq(c0: u32, cu: u32, xb: u32, live: bool, tid: u32) -> f32 {
  var squares = 0.0;
  workgroupBarrier();
  for (var u = tid; u < cu; u += WG) { squares += quantize_unit(xb, c0 + u, u, live); }
  workgroupBarrier();
  return squares;
}

// Units s0 .. s0 + cnt of the chunk at c0 for x rows m .. m + rows (XROWS >
// 1), row r's at xq unit r * stride + (u - s0). Unit u of the chunk goes to
// invocation u, as in stage_xq, so part[r] gets row r's squares as the
// one-row kernel's invocation has them. Uniform control flow.
fn stage_xq_rows(c0: u32, s0: u32, cnt: u32, stride: u32, m: u32, rows: u32, tid: u32,
                 part: ptr<function, array<f32, XROWS_MAX>>) {
  workgroupBarrier();
  if (tid >= s0 && tid < s0 + cnt) {
    for (var r = 0u; r < rows; r++) {
      (*part)[r] += quantize_unit((m + r) * (params.k / 4u), c0 + tid, r * stride + tid - s0, true);
    }
  }
  workgroupBarrier();
}

// Sum of the packed products of half a block's weights w (16 int8 or
// nibble values) with 16 staged quants a.
fn dot_half(w: vec4<u32>, a: vec4<u32>) -> i32 {
  return (dot4I8Packed(w.x, a.x) + dot4I8Packed(w.y, a.y)) + (dot4I8Packed(w.z, a.z) + dot4I8Packed(w.w, a.w));
}

// The same for a whole block: wa, wb with the staged quants a (elements
// 0-15) and b (16-31).
fn dot_words(wa: vec4<u32>, wb: vec4<u32>, a: vec4<u32>, b: vec4<u32>) -> i32 {
  return dot_half(wa, a) + dot_half(wb, b);
}

// Q6_K's values of elements 4j..4j+3 as packed int8 (the file's q: the 6-bit
// value less 32): bit 5 flipped, then copied into bits 6 and 7.
fn q6k_signed(lo: vec4<u32>, hi: vec2<u32>, j: u32) -> u32 {
  let t = q6k_word(lo, hi, j) ^ 0x20202020u;
  return t | (((t >> 5u) & 0x01010101u) * 0xc0u);
}

// A Q6_K unit's dot product with staged unit u: its halves (elements 0-15,
// 16-31) have their own scales s.x, s.y.
fn block_dot_q6k(qa: vec4<u32>, hi: vec2<u32>, s: vec2<f32>, at: u32, xscale: f32) -> f32 {
  let w0 = vec4<u32>(q6k_signed(qa, hi, 0u), q6k_signed(qa, hi, 1u), q6k_signed(qa, hi, 2u), q6k_signed(qa, hi, 3u));
  let w1 = vec4<u32>(q6k_signed(qa, hi, 4u), q6k_signed(qa, hi, 5u), q6k_signed(qa, hi, 6u), q6k_signed(qa, hi, 7u));
  let a = xq[at];
  let b = xq[at + 1u];
  var t0 = vec2<i32>(dot_half(w0, a), 0i);
  var t1 = vec2<i32>(dot_half(w1, b), 0i);
  if (XQ_LEVELS == 2u) {
    t0.y = dot_half(w0, xq[at + 2u]);
    t1.y = dot_half(w1, xq[at + 3u]);
  }
  return xscale * (s.x * (f32(t0.x) + f32(t0.y) * (1.0 / 254.0)) + s.y * (f32(t1.x) + f32(t1.y) * (1.0 / 254.0)));
}

// One block's dot product with staged unit u: quants qa (and qb, Q8_0's
// second half or the high bits of Q5_K and Q6_K), weight scale s (and the
// min of Q4_1, Q4_K and Q5_K; Q6_K's second scale).
fn block_dot_q8(qa: vec4<u32>, qb: vec4<u32>, s: vec2<f32>, u: u32) -> f32 {
  let at = u * XQ_STRIDE;
  let st = xq[at + 4u];
  let xscale = bitcast<f32>(st.x);
  if (QTYPE == 1014u) { return block_dot_q6k(qa, qb.xy, s, at, xscale); }
  // Weight values as packed int8: Q8_0's bytes; Q4's low nibbles (elements
  // 0-15) and high nibbles (16-31), 0..15 being valid int8.
  var wa = qa;
  var wb = qb;
  if (QTYPE != 1008u) {
    let m = vec4<u32>(0x0f0f0f0fu);
    wa = qa & m;
    wb = (qa >> vec4<u32>(4u)) & m;
  }
  if (QTYPE == 1013u) {  // Q5_K's fifth bits: bit j of each byte of qb.x for word j
    let hi = vec4<u32>(qb.x);
    wa |= ((hi >> vec4<u32>(0u, 1u, 2u, 3u)) & vec4<u32>(0x01010101u)) << vec4<u32>(4u);
    wb |= ((hi >> vec4<u32>(4u, 5u, 6u, 7u)) & vec4<u32>(0x01010101u)) << vec4<u32>(4u);
  }
  var t = vec2<i32>(dot_words(wa, wb, xq[at], xq[at + 1u]), 0i);
  if (XQ_LEVELS == 2u) { t.y = dot_words(wa, wb, xq[at + 2u], xq[at + 3u]); }
  if (QTYPE == 1002u || QTYPE == 1100u) { t -= 8i * bitcast<vec2<i32>>(st.yw); }
  let r = s.x * xscale * (f32(t.x) + f32(t.y) * (1.0 / 254.0));
  if (has_min()) { return r + s.y * bitcast<f32>(st.z); }
  return r;
}

// The units u0 + lane + i * LANES (below cu) of b against the staged x
// (gemv_planar.wgsl's dot_blocks for int8 x).
fn dot_blocks_q8(b: PlanarBlocks, cu: u32, u0: u32, lane: u32, live: bool) -> f32 {
  var acc = 0.0;
  for (var i = 0u; i < UPL; i++) {
    let u = u0 + lane + i * LANES;
    if (live && u < cu) { acc += block_dot_q8(b.qa[i], b.qb[i], b.sc[i], u); }
  }
  return acc;
}

// XROWS > 1: each chunk of XQ_UNITS units is quantized in parts
// (gemv_rows_pow2) for all rows, and walked in steps that end at part
// and dot_blocks_q8 span ends (span: the one-row kernel's UPL blocks per
// lane, `group` units); each span's blocks are loaded once at its start and
// summed per row as dot_blocks_q8 sums them, so each row's result is that of
// XROWS = 1.
fn main_rows(slot: GemvSlot, rows: u32, tid: u32) {
  let units = params.k / 32u;
  let row_live = rows > 0u && slot.n < params.n;
  let group = min(UPL * LANES, XQ_UNITS);
  let part_units = XQ_UNITS / gemv_rows_pow2(rows);
  let step = min(group, part_units);
  var acc: array<f32, XROWS_MAX>;
  var squares: array<f32, XROWS_MAX>;
  var dots: array<f32, XROWS_MAX>;
  var b: PlanarBlocks;
  for (var c0 = 0u; c0 < units; c0 += XQ_UNITS) {
    let cu = min(XQ_UNITS, units - c0);
    var part = array<f32, XROWS_MAX>();  // this chunk's squares (reset each chunk)
    for (var s = 0u; s < cu; s += step) {
      let p0 = s - s % part_units;
      if (s == p0) { stage_xq_rows(c0, s, min(part_units, cu - s), part_units, slot.m, rows, tid, &part); }
      let g0 = s - s % group;
      if (s == g0) {
        b = load_planar_blocks(slot.n, c0, cu, g0, slot.lane, row_live);
        dots = array<f32, XROWS_MAX>();
      }
      for (var i = 0u; i < UPL; i++) {
        let u = g0 + slot.lane + i * LANES;
        if (row_live && u >= s && u < min(s + step, cu)) {
          for (var r = 0u; r < rows; r++) { dots[r] += block_dot_q8(b.qa[i], b.qb[i], b.sc[i], r * part_units + u - p0); }
        }
      }
      if ((s + step) % group == 0u || s + step >= cu) {
        for (var r = 0u; r < XROWS; r++) { acc[r] += dots[r]; }
      }
    }
    for (var r = 0u; r < XROWS; r++) { squares[r] += part[r]; }
  }
  gemv_finish_rows(slot, rows, acc, squares, tid);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let slot = gemv_slot(wid, nwg, tid);
  if (XROWS > 1u) {
    main_rows(slot, gemv_rows(wid, nwg), tid);
    return;
  }
  let lane = slot.lane;
  let units = params.k / 32u;
  let xb = slot.m * (params.k / 4u);
  if (ROW_BLOCKS > 1u) {
    // Row blocks: all of x quantized once (the host keeps K <= XQ_UNITS * 32),
    // then ROW_BLOCKS blocks of ROWS rows against it, so each workgroup's
    // quantization serves ROW_BLOCKS times as many rows.
    let squares = stage_xq(0u, units, xb, slot.live, tid);
    for (var r = 0u; r < ROW_BLOCKS; r++) {
      workgroupBarrier();  // the epilogue's workgroup memory is free again
      let s = GemvSlot(slot.m, slot.n + r * ROWS, lane, slot.live);
      let row_live = s.live && s.n < params.n;
      var acc = 0.0;
      for (var u0 = 0u; u0 < units; u0 += UPL * LANES) {
        acc += dot_blocks_q8(load_planar_blocks(s.n, 0u, units, u0, lane, row_live), units, u0, lane, row_live);
      }
      gemv_finish(s, acc, squares, tid);
    }
    return;
  }
  // (Issuing the first weight loads before x is quantized, as
  // gemv_planar.wgsl does, made gate/up 17.5 -> 24.7 us on the H200,
  // bench/RESULTS.md session 9: the loaded blocks then live across the
  // quantization.)
  let row_live = slot.live && slot.n < params.n;
  var acc = 0.0;
  var squares = 0.0;
  for (var c0 = 0u; c0 < units; c0 += XQ_UNITS) {
    let cu = min(XQ_UNITS, units - c0);
    squares += stage_xq(c0, cu, xb, slot.live, tid);
    // UPL blocks per lane loaded together, then their dot products.
    for (var u0 = 0u; u0 < cu; u0 += UPL * LANES) {
      acc += dot_blocks_q8(load_planar_blocks(slot.n, c0, cu, u0, lane, row_live), cu, u0, lane, row_live);
    }
  }
  gemv_finish(slot, acc, squares, tid);
}
