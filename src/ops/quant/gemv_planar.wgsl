// The decode GEMV for weights in the planar layout, on f32 x.
// Sources before this one: common/prelude.wgsl, a common/reduce_*.wgsl,
// common/reduce.wgsl, quant/linear_io.wgsl, quant/gemv_skeleton.wgsl,
// quant/gemv_stage_x.wgsl, quant/gemv_planar_weights.wgsl.
//
// The skeleton is gemv.wgsl's (a workgroup of 256 owns ROWS weight rows,
// LANES threads per row take its blocks lane-strided, x staged in workgroup
// memory, lanes_sum); the weight access and decode differ:
// - the loads of a chunk's UPL blocks per lane are all issued before x is
//   staged, so they are in flight together and behind the staging;
// - nibbles and bytes become floats by OR-ing them into the mantissa of
//   2^23 (bitcast<f32>(0x4b000000 | q) = 2^23 + q, exact) and one subtraction,
//   instead of integer-to-float conversions (a quarter-rate instruction on
//   NVIDIA GPUs); Q4_0's -8 and Q8_0's +128 bias fold into that subtraction,
//   Q4_1's min is applied once per block as m * sum(x).

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

// One block's dot product with the staged x at xs[b ..]: quants qa (and qb,
// Q8_0's second half), scale s.
fn block_dot(qa: vec4<u32>, qb: vec4<u32>, s: vec2<f32>, b: u32) -> f32 {
  if (QTYPE == 1008u) {
    let t = byte_dot(qa.x, xs[b]) + byte_dot(qa.y, xs[b + 1u]) + byte_dot(qa.z, xs[b + 2u]) +
            byte_dot(qa.w, xs[b + 3u]) + byte_dot(qb.x, xs[b + 4u]) + byte_dot(qb.y, xs[b + 5u]) +
            byte_dot(qb.z, xs[b + 6u]) + byte_dot(qb.w, xs[b + 7u]);
    return s.x * t;
  }
  let off = select(8388616.0, 8388608.0, QTYPE == 1003u);  // 2^23 + 8 for Q4_0's q - 8
  let t = nibble_dot(qa.x, xs[b], xs[b + 4u], off) + nibble_dot(qa.y, xs[b + 1u], xs[b + 5u], off) +
          nibble_dot(qa.z, xs[b + 2u], xs[b + 6u], off) + nibble_dot(qa.w, xs[b + 3u], xs[b + 7u], off);
  var r = s.x * t;
  if (QTYPE == 1003u) {
    let xsum = (xs[b] + xs[b + 1u]) + (xs[b + 2u] + xs[b + 3u]) + (xs[b + 4u] + xs[b + 5u]) + (xs[b + 6u] + xs[b + 7u]);
    r += s.y * dot(xsum, vec4<f32>(1.0));
  }
  return r;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) tid: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let slot = gemv_slot(wid, nwg, tid);
  let n = slot.n;
  let lane = slot.lane;
  let live = slot.live;
  let row_live = live && n < params.n;
  let units = params.k / 32u;
  let per_block = select(1u, 2u, QTYPE == 1008u);  // vec4s of quants per block
  let row = n * (params.row_words / 4u);
  let scales = row + units * per_block;
  let xb = slot.m * (params.k / 4u);
  let chunk = min(UPL * LANES, CHUNK_UNITS);

  var acc = 0.0;
  var squares = 0.0;
  for (var c0 = 0u; c0 < units; c0 += chunk) {
    let cu = min(chunk, units - c0);
    var qa: array<vec4<u32>, UPL_MAX>;
    var qb: array<vec4<u32>, UPL_MAX>;
    var sc: array<vec2<f32>, UPL_MAX>;
    for (var i = 0u; i < UPL; i++) {
      let u = lane + i * LANES;
      if (row_live && u < cu) {
        let g = c0 + u;
        let quants = block_quants(row, g);
        qa[i] = quants[0];
        qb[i] = quants[1];
        sc[i] = block_scale(scales, g);
      }
    }
    squares += stage_x(c0, cu, xb, live, tid);
    for (var i = 0u; i < UPL; i++) {
      let u = lane + i * LANES;
      if (row_live && u < cu) { acc += block_dot(qa[i], qb[i], sc[i], u * 9u); }
    }
  }
  gemv_finish(slot, acc, squares, tid);
}
