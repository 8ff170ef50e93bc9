// The weight side of the decode GEMVs for the planar layout (quant_layout.h:
// Q4_0, Q4_1, Q8_0, Q4_K, Q5_K, Q6_K and Q4_0F32 rows as [16- or 32-byte
// quants per 32-element block; Q5_K's and Q6_K's high bits after them]
// [scales]), shared by
// gemv_planar.wgsl (f32 x) and gemv_planar_q8.wgsl (x as int8). A lane reads
// a block's quants as one or two vec4<u32> (neighbouring lanes: neighbouring
// 16 bytes, whole 32-byte sectors) and its scale from the row's scale part.
//! import quant/q4k_header.wgsl
//! import quant/planar_high_bits.wgsl

override QTYPE: u32 = 1002u;  // 1002 Q4_0, 1003 Q4_1, 1008 Q8_0, 1012 Q4_K, 1013 Q5_K, 1014 Q6_K, 1100 Q4_0F32 (planar layout)
// Formats whose values are scale * q + min (Q4_1; Q4_K in that form): nibbles
// unbiased, and the min's term added as min * sum(x).
fn has_min() -> bool { return QTYPE == 1003u || QTYPE == 1012u || QTYPE == 1013u; }

// Blocks per lane whose loads are issued together (at most UPL_MAX; the
// per-lane arrays are sized by UPL_MAX, loops run to UPL and unroll).
const UPL_MAX: u32 = 8u;
override UPL: u32 = 4u;

// Timing probes (WGRT_GEMV_PROBE, wrong results; bench/variants_decode.sh):
// 0 off; gemv_planar.wgsl only: 1 x read as ones instead of from workgroup
// memory, 2 no decode or multiply (the quant words summed as bits); 3 no
// weight loads (quants made from the lane index). Each removes one cost, so
// a probe's difference from 0 is that cost's share of the kernel's time.
override PROBE: u32 = 0u;

@group(0) @binding(1) var<storage, read> wq: array<vec4<u32>>;

// Vec4s of quants before a row's scale part, for `units` units.
fn quant_vec4s(units: u32) -> u32 {
  if (QTYPE == 1013u) { return units + units / 4u; }
  if (QTYPE == 1014u) { return units + units / 2u; }
  return units * select(1u, 2u, QTYPE == 1008u);
}

// Scale (and the min of Q4_1, Q4_K and Q5_K; Q6_K: the scales of elements 0-15 and
// 16-31, d applied) of block g of the row whose scales start at vec4 s.
fn block_scale(s: u32, g: u32) -> vec2<f32> {
  if (QTYPE == 1003u) { return unpack2x16float(wq[s + g / 4u][g % 4u]); }
  if (QTYPE == 1012u || QTYPE == 1013u) { return q4k_unit_scale(wq[s + g / 8u], g % 8u); }
  if (QTYPE == 1014u) {
    let sb = g / 8u;
    let d = unpack2x16float(wq[s + params.k / 256u + sb / 8u][(sb / 2u) % 4u])[sb % 2u];
    return q6k_scales(wq[s + sb][(g % 8u) / 2u] >> (16u * (g % 2u)), d);
  }
  if (QTYPE == 1100u) { return vec2<f32>(bitcast<f32>(wq[s + g / 4u][g % 4u]), 0.0); }
  let dd = unpack2x16float(wq[s + g / 8u][(g / 2u) % 4u]);
  return vec2<f32>(select(dd.x, dd.y, g % 2u == 1u), 0.0);
}

// The quants of block g of the row starting at vec4 `row`: one vec4 (Q4_0,
// Q4_1, Q4_K: 32 nibbles, byte b holding elements b and b + 16), or two
// (Q8_0: bytes 0-15, then 16-31; Q5_K, Q6_K: the low nibbles, then the word
// or two of high bits in .x or .xy).
fn block_quants(row: u32, g: u32) -> array<vec4<u32>, 2> {
  if (QTYPE == 1008u) { return array<vec4<u32>, 2>(wq[row + g * 2u], wq[row + g * 2u + 1u]); }
  if (QTYPE == 1013u) {
    return array<vec4<u32>, 2>(wq[row + g], vec4<u32>(wq[row + params.k / 32u + g / 4u][g % 4u], 0u, 0u, 0u));
  }
  if (QTYPE == 1014u) {
    let hi = wq[row + params.k / 32u + g / 2u];
    return array<vec4<u32>, 2>(wq[row + g], vec4<u32>(select(hi.xy, hi.zw, g % 2u == 1u), 0u, 0u));
  }
  return array<vec4<u32>, 2>(wq[row + g], vec4<u32>(0u));
}

// UPL blocks of one lane, loaded together.
struct PlanarBlocks {
  qa: array<vec4<u32>, UPL_MAX>,
  qb: array<vec4<u32>, UPL_MAX>,  // Q8_0's second halves, Q5_K's and Q6_K's high bits
  sc: array<vec2<f32>, UPL_MAX>,
}

// Blocks c0 + u of weight row n for u = u0 + lane + i * LANES (i < UPL), those
// with u < cu, when live.
fn load_planar_blocks(n: u32, c0: u32, cu: u32, u0: u32, lane: u32, live: bool) -> PlanarBlocks {
  let units = params.k / 32u;
  let row = n * (params.row_words / 4u);
  let scales = row + quant_vec4s(units);
  var b: PlanarBlocks;
  for (var i = 0u; i < UPL; i++) {
    let u = u0 + lane + i * LANES;
    if (live && u < cu && PROBE == 3u) {
      b.qa[i] = vec4<u32>(lane * 0x01010101u + i, n, u, c0);
      b.sc[i] = vec2<f32>(f32(lane) * 1e-3, 0.0);
    } else if (live && u < cu) {
      let quants = block_quants(row, c0 + u);
      b.qa[i] = quants[0];
      b.qb[i] = quants[1];
      b.sc[i] = block_scale(scales, c0 + u);
    }
  }
  return b;
}
