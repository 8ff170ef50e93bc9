// The decode GEMV for weights in the planar layout, on f32 x.
// Imports (below) the skeleton, which brings the prelude, the reductions and
// linear_io.wgsl, and the staging of x and the planar weights.
//
// The skeleton is gemv.wgsl's (a workgroup of WG owns ROWS weight rows,
// LANES threads per row take its blocks lane-strided, x staged in workgroup
// memory, lanes_sum); the weight access and decode differ:
// - the loads of a chunk's UPL blocks per lane are all issued before x is
//   staged, so they are in flight together and behind the staging;
// - with ROW_BLOCKS > 1 (matrices of many rows: output heads) x is staged
//   once and serves ROW_BLOCKS blocks of ROWS rows, so each workgroup's
//   fixed costs (staging, norm, epilogue set-up) are shared by more rows;
// - nibbles and bytes become floats by OR-ing them into the mantissa of
//   2^23 (bitcast<f32>(0x4b000000 | q) = 2^23 + q, exact) and one subtraction,
//   instead of integer-to-float conversions (a quarter-rate instruction on
//   NVIDIA GPUs); Q4_0's -8 and Q8_0's +128 bias fold into that subtraction,
//   Q4_1's min is applied once per block as m * sum(x).
//! import linear/gemv_skeleton.wgsl
//! import linear/gemv_stage_x.wgsl
//! import linear/gemv_planar_weights.wgsl

const MAGIC: u32 = 0x4b000000u;  // the bits of 2^23

var<workgroup> xs: array<vec4<f32>, 1152>;  // CHUNK_UNITS * 9
const CHUNK_UNITS: u32 = 128u;  // units of x staged at a time

// Nibbles of one quant word: low ones are elements 4j..4j+3 of the block
// (x in xl), high ones 16+4j.. (x in xh); off = 2^23 + the format's bias.
fn nibble_dot(word: u32, xl: vec4<f32>, xh: vec4<f32>, off: f32) -> f32 {
  let wv = vec4<u32>(word);
  let lo = bitcast<vec4<f32>>(((wv >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(15u)) | vec4<u32>(MAGIC));
  let hi = bitcast<vec4<f32>>(((wv >> vec4<u32>(4u, 12u, 20u, 28u)) & vec4<u32>(15u)) | vec4<u32>(MAGIC));
  return dot(lo - off, xl) + dot(hi - off, xh);
}

// The four int8 quants of one word (elements 4j..4j+3, x in xv); flipping
// the sign bits makes them q + 128.
fn byte_dot(word: u32, xv: vec4<f32>) -> f32 {
  let wv = vec4<u32>(word ^ 0x80808080u);
  let q = bitcast<vec4<f32>>(((wv >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u)) | vec4<u32>(MAGIC));
  return dot(q - 8388736.0, xv);
}

// Q5_K's values of elements 4j..4j+3 as floats (0..31, exact: 2^23 + q less 2^23).
fn q5k_floats(qa: vec4<u32>, hi: u32, j: u32) -> vec4<f32> {
  let wv = vec4<u32>(q5k_word(qa, hi, j));
  return bitcast<vec4<f32>>(((wv >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u)) | vec4<u32>(MAGIC)) - 8388608.0;
}

// Q6_K's values of elements 4j..4j+3 as floats biased by 2^23 + 32 (less
// Q6K_OFF: the file's q).
const Q6K_OFF: f32 = 8388640.0;
fn q6k_floats(qa: vec4<u32>, hi: vec2<u32>, j: u32) -> vec4<f32> {
  let wv = vec4<u32>(q6k_word(qa, hi, j));
  return bitcast<vec4<f32>>(((wv >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u)) | vec4<u32>(MAGIC));
}

// One block's dot product with the staged x at xs[b ..]: quants qa (and qb,
// Q8_0's second half or the high bits of Q5_K and Q6_K), scale s (and the
// min of the has_min() formats; Q6_K: one scale per half).
fn block_dot(qa: vec4<u32>, qb: vec4<u32>, s: vec2<f32>, b: u32) -> f32 {
  if (PROBE == 2u) { return s.x * bitcast<f32>((qa.x ^ qa.y ^ qa.z ^ qa.w ^ qb.x) & 0x3fffffffu); }
  if (PROBE == 1u) {
    let one = vec4<f32>(s.y + 1.0);
    return s.x * (nibble_dot(qa.x, one, one, 8.0) + nibble_dot(qa.y, one, one, 8.0) +
                  nibble_dot(qa.z, one, one, 8.0) + nibble_dot(qa.w, one, one, 8.0));
  }
  if (QTYPE == 1014u) {
    let t0 = (dot(q6k_floats(qa, qb.xy, 0u) - Q6K_OFF, xs[b]) + dot(q6k_floats(qa, qb.xy, 1u) - Q6K_OFF, xs[b + 1u])) +
             (dot(q6k_floats(qa, qb.xy, 2u) - Q6K_OFF, xs[b + 2u]) + dot(q6k_floats(qa, qb.xy, 3u) - Q6K_OFF, xs[b + 3u]));
    let t1 = (dot(q6k_floats(qa, qb.xy, 4u) - Q6K_OFF, xs[b + 4u]) + dot(q6k_floats(qa, qb.xy, 5u) - Q6K_OFF, xs[b + 5u])) +
             (dot(q6k_floats(qa, qb.xy, 6u) - Q6K_OFF, xs[b + 6u]) + dot(q6k_floats(qa, qb.xy, 7u) - Q6K_OFF, xs[b + 7u]));
    return s.x * t0 + s.y * t1;
  }
  if (QTYPE == 1008u) {
    let t = byte_dot(qa.x, xs[b]) + byte_dot(qa.y, xs[b + 1u]) + byte_dot(qa.z, xs[b + 2u]) +
            byte_dot(qa.w, xs[b + 3u]) + byte_dot(qb.x, xs[b + 4u]) + byte_dot(qb.y, xs[b + 5u]) +
            byte_dot(qb.z, xs[b + 6u]) + byte_dot(qb.w, xs[b + 7u]);
    return s.x * t;
  }
  var t: f32;
  if (QTYPE == 1013u) {
    t = (dot(q5k_floats(qa, qb.x, 0u), xs[b]) + dot(q5k_floats(qa, qb.x, 4u), xs[b + 4u])) +
        (dot(q5k_floats(qa, qb.x, 1u), xs[b + 1u]) + dot(q5k_floats(qa, qb.x, 5u), xs[b + 5u])) +
        (dot(q5k_floats(qa, qb.x, 2u), xs[b + 2u]) + dot(q5k_floats(qa, qb.x, 6u), xs[b + 6u])) +
        (dot(q5k_floats(qa, qb.x, 3u), xs[b + 3u]) + dot(q5k_floats(qa, qb.x, 7u), xs[b + 7u]));
  } else {
    let off = select(8388616.0, 8388608.0, has_min());  // 2^23 + 8 for Q4_0's q - 8
    t = nibble_dot(qa.x, xs[b], xs[b + 4u], off) + nibble_dot(qa.y, xs[b + 1u], xs[b + 5u], off) +
        nibble_dot(qa.z, xs[b + 2u], xs[b + 6u], off) + nibble_dot(qa.w, xs[b + 3u], xs[b + 7u], off);
  }
  var r = s.x * t;  // the min's term as block_dot_decoded adds it, statement for statement
  if (has_min()) {
    let xsum = (xs[b] + xs[b + 1u]) + (xs[b + 2u] + xs[b + 3u]) + (xs[b + 4u] + xs[b + 5u]) + (xs[b + 6u] + xs[b + 7u]);
    r += s.y * dot(xsum, vec4<f32>(1.0));
  }
  return r;
}

// A block's weights as floats, biased as block_dot's words give them: w[j]
// meets x vec4 j of the unit (Q4: word j's low nibbles in w[j], its high
// ones in w[j + 4]; Q8_0: word j of qa, then of qb). Decoded once and dotted
// with several rows' x (XROWS > 1) by block_dot_decoded, whose sums are
// block_dot's, term by term in the same order.
struct BlockFloats {
  w: array<vec4<f32>, 8>,
}

fn decode_block(qa: vec4<u32>, qb: vec4<u32>) -> BlockFloats {
  var d: BlockFloats;
  if (QTYPE == 1014u) {
    for (var j = 0u; j < 8u; j++) { d.w[j] = q6k_floats(qa, qb.xy, j) - Q6K_OFF; }
    return d;
  }
  if (QTYPE == 1013u) {
    for (var j = 0u; j < 8u; j++) { d.w[j] = q5k_floats(qa, qb.x, j); }
    return d;
  }
  if (QTYPE == 1008u) {
    for (var j = 0u; j < 4u; j++) {
      let a = vec4<u32>(qa[j] ^ 0x80808080u);
      let b = vec4<u32>(qb[j] ^ 0x80808080u);
      d.w[j] = bitcast<vec4<f32>>(((a >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u)) | vec4<u32>(MAGIC)) - 8388736.0;
      d.w[j + 4u] = bitcast<vec4<f32>>(((b >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u)) | vec4<u32>(MAGIC)) - 8388736.0;
    }
    return d;
  }
  let off = select(8388616.0, 8388608.0, has_min());
  for (var j = 0u; j < 4u; j++) {
    let wv = vec4<u32>(qa[j]);
    d.w[j] = bitcast<vec4<f32>>(((wv >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(15u)) | vec4<u32>(MAGIC)) - off;
    d.w[j + 4u] = bitcast<vec4<f32>>(((wv >> vec4<u32>(4u, 12u, 20u, 28u)) & vec4<u32>(15u)) | vec4<u32>(MAGIC)) - off;
  }
  return d;
}

fn block_dot_decoded(d: ptr<function, BlockFloats>, s: vec2<f32>, b: u32) -> f32 {
  let w = &(*d).w;
  if (QTYPE == 1014u) {
    let t0 = (dot((*w)[0], xs[b]) + dot((*w)[1], xs[b + 1u])) + (dot((*w)[2], xs[b + 2u]) + dot((*w)[3], xs[b + 3u]));
    let t1 = (dot((*w)[4], xs[b + 4u]) + dot((*w)[5], xs[b + 5u])) + (dot((*w)[6], xs[b + 6u]) + dot((*w)[7], xs[b + 7u]));
    return s.x * t0 + s.y * t1;
  }
  if (QTYPE == 1008u) {
    let t = dot((*w)[0], xs[b]) + dot((*w)[1], xs[b + 1u]) + dot((*w)[2], xs[b + 2u]) + dot((*w)[3], xs[b + 3u]) +
            dot((*w)[4], xs[b + 4u]) + dot((*w)[5], xs[b + 5u]) + dot((*w)[6], xs[b + 6u]) + dot((*w)[7], xs[b + 7u]);
    return s.x * t;
  }
  let t = (dot((*w)[0], xs[b]) + dot((*w)[4], xs[b + 4u])) + (dot((*w)[1], xs[b + 1u]) + dot((*w)[5], xs[b + 5u])) +
          (dot((*w)[2], xs[b + 2u]) + dot((*w)[6], xs[b + 6u])) + (dot((*w)[3], xs[b + 3u]) + dot((*w)[7], xs[b + 7u]));
  var r = s.x * t;
  if (has_min()) {
    let xsum = (xs[b] + xs[b + 1u]) + (xs[b + 2u] + xs[b + 3u]) + (xs[b + 4u] + xs[b + 5u]) + (xs[b + 6u] + xs[b + 7u]);
    r += s.y * dot(xsum, vec4<f32>(1.0));
  }
  return r;
}

// The staged units u0 + lane + i * LANES (below cu) of b against xs.
fn dot_blocks(b: PlanarBlocks, cu: u32, u0: u32, lane: u32, live: bool) -> f32 {
  var acc = 0.0;
  for (var i = 0u; i < UPL; i++) {
    let u = u0 + lane + i * LANES;
    if (live && u < cu) { acc += block_dot(b.qa[i], b.qb[i], b.sc[i], u * 9u); }
  }
  return acc;
}

// Row blocks: all of x staged once (the host keeps K <= CHUNK_UNITS * 32),
// then ROW_BLOCKS blocks of ROWS rows against it (XROWS = 1). The squares
// add chunk by chunk as main_one adds them, and where UPL * LANES <=
// CHUNK_UNITS so do the dot products: each row's sums are then main_one's,
// and the host lets the multi-row kernel serve these matrices for M > 1.
fn main_row_blocks(slot: GemvSlot, tid: u32) {
  let units = params.k / 32u;
  let squares = stage_x_whole(units, min(UPL * LANES, CHUNK_UNITS), slot.m * (params.k / 4u), slot.live, tid);
  for (var r = 0u; r < ROW_BLOCKS; r++) {
    workgroupBarrier();  // the epilogue's workgroup memory is free again
    let s = GemvSlot(slot.m, slot.n + r * ROWS, slot.lane, slot.live);
    let row_live = s.live && s.n < params.n;
    var acc = 0.0;
    for (var u0 = 0u; u0 < units; u0 += UPL * LANES) {
      acc += dot_blocks(load_planar_blocks(s.n, 0u, units, u0, s.lane, row_live), units, u0, s.lane, row_live);
    }
    gemv_finish(s, acc, squares, tid);
  }
}

// One row of x (XROWS = 1, decode): x in chunks of UPL blocks per lane, each
// chunk's weight loads issued before its staging. (The loop below gives the
// same sums for any rows, but its per-row arrays cost a one-row step ~40 %
// on lavapipe, measured: tg32 2.3 vs 3.7 tok/s; this path is that loop's
// reference order.)
fn main_one(slot: GemvSlot, tid: u32) {
  let lane = slot.lane;
  let units = params.k / 32u;
  let xb = slot.m * (params.k / 4u);
  let row_live = slot.live && slot.n < params.n;
  let chunk = min(UPL * LANES, CHUNK_UNITS);
  var acc = 0.0;
  var squares = 0.0;
  for (var c0 = 0u; c0 < units; c0 += chunk) {
    let cu = min(chunk, units - c0);
    let b = load_planar_blocks(slot.n, c0, cu, 0u, lane, row_live);
    squares += stage_x(c0, cu, xb, slot.live, tid);
    acc += dot_blocks(b, cu, 0u, lane, row_live);
  }
  gemv_finish(slot, acc, squares, tid);
}

// XROWS > 1: x in chunks of UPL blocks per lane, each chunk's weight loads issued before
// its staging. A chunk is staged in parts (gemv_rows_pow2) for
// all rows (a multiple of LANES: the host sees to it); block i of a lane
// meets each row's x in the part holding it. Each row's sums are those of
// XROWS = 1 (dot_blocks per chunk, then added to acc).
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let slot = gemv_slot(wid, nwg, tid);
  prepare_x_rows(wid, nwg, slot.m, tid);
  if (ROW_BLOCKS > 1u) {
    main_row_blocks(slot, tid);
    return;
  }
  if (XROWS == 1u) {
    main_one(slot, tid);
    return;
  }
  let lane = slot.lane;
  let rows = gemv_rows(wid, nwg);
  let row_live = rows > 0u && slot.n < params.n;
  let units = params.k / 32u;
  let chunk = min(UPL * LANES, CHUNK_UNITS);
  let part_units = CHUNK_UNITS / gemv_rows_pow2(rows);
  var acc: array<f32, XROWS_MAX>;
  var squares: array<f32, XROWS_MAX>;
  for (var c0 = 0u; c0 < units; c0 += chunk) {
    let cu = min(chunk, units - c0);
    let b = load_planar_blocks(slot.n, c0, cu, 0u, lane, row_live);
    var part = array<f32, XROWS_MAX>();  // this chunk's squares (reset each chunk)
    var dots = array<f32, XROWS_MAX>();  // and its dot products (dot_blocks')
    for (var s0 = 0u; s0 < cu; s0 += part_units) {
      let cnt = min(part_units, cu - s0);
      stage_rows(c0, s0, cnt, part_units, slot.m, rows, tid, &part);
      for (var i = 0u; i < UPL; i++) {
        let u = lane + i * LANES;
        if (row_live && u >= s0 && u < s0 + cnt) {
          if (PROBE != 0u) {
            for (var r = 0u; r < rows; r++) {
              dots[r] += block_dot(b.qa[i], b.qb[i], b.sc[i], (r * part_units + u - s0) * 9u);
            }
          } else {
            var d = decode_block(b.qa[i], b.qb[i]);  // once for every row
            for (var r = 0u; r < rows; r++) {
              dots[r] += block_dot_decoded(&d, b.sc[i], (r * part_units + u - s0) * 9u);
            }
          }
        }
      }
    }
    for (var r = 0u; r < XROWS; r++) {
      acc[r] += dots[r];
      squares[r] += part[r];
    }
  }
  gemv_finish_rows(slot, rows, acc, squares, tid);
}
