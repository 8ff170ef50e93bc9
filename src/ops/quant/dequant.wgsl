// Decoding of ggml block formats, shared by the quantized linear and
// embedding shaders (they import it). Weights sit in `w`
// as rows of blocks, each block padded to whole 32-bit words (quant_layout.h
// says where the padding goes; no value changes). A "unit" is 32 consecutive
// elements of a row: one block for 32-element formats, an eighth of a
// super-block for the K-quants and IQ4_XS. decode_unit gives a unit as 8
// vec4s, built from whole-word loads and vector bit operations; each format
// has one decode function below, sharing it with the format it extends.
//
// QTYPE is the ggml type id: 0 F32, 1 F16, 2 Q4_0, 3 Q4_1, 6 Q5_0, 7 Q5_1,
// 8 Q8_0, 10 Q2_K, 11 Q3_K, 12 Q4_K, 13 Q5_K, 14 Q6_K, 20 IQ4_NL, 23 IQ4_XS,
// and wgrt's own 100 Q4_0F32 (quant_layout.h: Q4_0 with an f32 scale);
// 1000 + the type for the planar layout below.
//! import quant/q4k_header.wgsl
//! import quant/planar_high_bits.wgsl
// BLOCK_WORDS and BLOCK_UNITS come from the host's QuantLayout.
override QTYPE: u32 = 3;
override BLOCK_WORDS: u32 = 5;  // words per block on the GPU
override BLOCK_UNITS: u32 = 1;  // 32-element units per block
// wgrt's planar layout (quant_layout.h: QTYPE 1002 Q4_0, 1003 Q4_1, 1008
// Q8_0, 1012 Q4_K, 1013 Q5_K, 1014 Q6_K, 1100 Q4_0F32): a row is [quants of ROW_UNITS
// units][their scales].
override ROW_UNITS: u32 = 1;

alias Unit = array<vec4<f32>, 8>;  // elements 4k..4k+3 in [k]

// The four bytes of a word, lowest first.
fn bytes4(word: u32) -> vec4<u32> {
  return (vec4<u32>(word) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(0xffu);
}

fn wbyte(base: u32, byte: u32) -> u32 {
  return (w[base + byte / 4u] >> (8u * (byte % 4u))) & 0xffu;
}

fn sext8(b: u32) -> f32 {
  return f32(i32(b << 24u) >> 24u);
}

// Bits `first`..`first + 3` of `word`, one per lane.
fn bits4(word: u32, first: u32) -> vec4<u32> {
  return (vec4<u32>(word) >> (vec4<u32>(first) + vec4<u32>(0u, 1u, 2u, 3u))) & vec4<u32>(1u);
}

fn decode_f32(base: u32, v: ptr<function, Unit>) {
  for (var k = 0u; k < 8u; k++) {
    (*v)[k] = bitcast<vec4<f32>>(vec4<u32>(w[base + 4u * k], w[base + 4u * k + 1u], w[base + 4u * k + 2u],
                                           w[base + 4u * k + 3u]));
  }
}

fn decode_f16(base: u32, v: ptr<function, Unit>) {
  for (var k = 0u; k < 8u; k++) {
    (*v)[k] = vec4<f32>(unpack2x16float(w[base + 2u * k]), unpack2x16float(w[base + 2u * k + 1u]));
  }
}

// Q4_0 [2 pad][d][16 B quants]: (q - 8) * d.   Q4_1 [d][m][16 B]: q * d + m.
// Q4_0F32 [d f32][16 B quants]: (q - 8) * d.
// Q5_0 [2 pad][d][qh u32][16 B]: (q - 16) * d. Q5_1 [d][m][qh u32][16 B]: q * d + m.
// Byte j holds element j (low nibble) and element j + 16 (high nibble); Q5's
// fifth bit of element e is bit e of qh.
fn decode_q4_q5(base: u32, v: ptr<function, Unit>) {
  let dm = unpack2x16float(w[base]);
  let symmetric = QTYPE == 2u || QTYPE == 6u || QTYPE == 100u;
  let five = QTYPE == 6u || QTYPE == 7u;
  let d = select(select(dm.x, dm.y, symmetric), bitcast<f32>(w[base]), QTYPE == 100u);
  let m = select(dm.y, 0.0, symmetric);
  let off = select(0.0, select(-8.0, -16.0, five), symmetric);
  let qh = select(0u, w[base + 1u], five);
  q4_quants(words4(base + select(1u, 2u, five)), d, m, off, qh, v);
}

// Words at .. at + 3.
fn words4(at: u32) -> vec4<u32> {
  return vec4<u32>(w[at], w[at + 1u], w[at + 2u], w[at + 3u]);
}

// The 16 quant bytes of a Q4/Q5 block: (q + off) * d + m.
fn q4_quants(quants: vec4<u32>, d: f32, m: f32, off: f32, qh: u32, v: ptr<function, Unit>) {
  for (var k = 0u; k < 4u; k++) {
    let b = bytes4(quants[k]);
    (*v)[k] = (vec4<f32>((b & vec4<u32>(15u)) | (bits4(qh, 4u * k) << vec4<u32>(4u))) + off) * d + m;
    (*v)[k + 4u] = (vec4<f32>((b >> vec4<u32>(4u)) | (bits4(qh, 16u + 4u * k) << vec4<u32>(4u))) + off) * d + m;
  }
}

fn decode_q8_0(base: u32, v: ptr<function, Unit>) {
  // [2 pad][d f16][32 x int8]
  q8_quants(words4(base + 1u), words4(base + 5u), unpack2x16float(w[base]).y, v);
}

// The 32 int8 quants of a Q8_0 block (bytes 0-15 in lo, 16-31 in hi), times d.
fn q8_quants(lo: vec4<u32>, hi: vec4<u32>, d: f32, v: ptr<function, Unit>) {
  for (var k = 0u; k < 4u; k++) {
    (*v)[k] = q8_word(lo[k]) * d;
    (*v)[k + 4u] = q8_word(hi[k]) * d;
  }
}

// The four int8 values of a word, lowest byte first.
fn q8_word(q: u32) -> vec4<f32> {
  return vec4<f32>(vec4<i32>(bitcast<i32>(q << 24u), bitcast<i32>(q << 16u), bitcast<i32>(q << 8u), bitcast<i32>(q)) >>
                   vec4<u32>(24u));
}

// The planar layout: unit u's quants at word 4u (Q8_0: 8u) of the row, then
// the scales: f16 d per block (Q4_0, Q8_0), f16 d, m (Q4_1), f32 d (Q4_0F32),
// a 16-byte header per 8 units (Q4_K, Q5_K: q4k_header.wgsl); Q5_K's and Q6_K's parts are in
// planar_high_bits.wgsl and quant_layout.h. Its words
// are fetched apart from their decoding (UnitWords below).
fn decode_planar(row_base: u32, unit: u32, v: ptr<function, Unit>) {
  *v = planar_unit(planar_words(row_base, unit), unit);
}

// What gemm.wgsl holds in registers for a unit of its next K tile: the
// planar layout's raw words (decoded only when staged, so their loads are in
// flight during the current tile's multiplies instead of stalling the
// decoding thread before them: +4-5 % on the H200, bench/RESULTS.md
// 2026-12-02), every other format decoded at once (its words depend on the
// format and the super-block).
struct UnitWords {
  qa: vec4<u32>,  // planar quants (Q8_0: bytes 0-15)
  qb: vec4<u32>,  // Q8_0's bytes 16-31; Q4_K's super-block header; Q6_K's high bits, scales, d
  scale: u32,     // the f16 pair holding the unit's scale (and Q4_1's min), Q4_0F32's f32 scale, Q5_K's fifth bits
  v: Unit,        // the decoded unit (other formats)
}

fn planar_words(row_base: u32, unit: u32) -> UnitWords {
  let q8 = QTYPE == 1008u;
  let at = row_base + select(4u, 8u, q8) * unit;
  var r: UnitWords;
  r.qa = words4(at);
  if (q8) { r.qb = words4(at + 4u); }
  let scales = row_base + ROW_UNITS * select(4u, 8u, q8);
  if (QTYPE == 1014u) {
    // After the low nibbles: 2 words of high bits per unit, 4 words of
    // scales per super-block, then the super-blocks' d (two per word).
    let sb = unit / 8u;
    let d = w[scales + ROW_UNITS * 2u + ROW_UNITS / 2u + sb / 2u] >> (16u * (sb % 2u));
    r.qb = vec4<u32>(w[scales + 2u * unit], w[scales + 2u * unit + 1u],
                     w[scales + ROW_UNITS * 2u + unit / 2u] >> (16u * (unit % 2u)), d);
    return r;
  }
  if (QTYPE == 1012u || QTYPE == 1013u) {
    // Q5_K: the units' fifth bits (a word each) come before the headers.
    let five = QTYPE == 1013u;
    r.qb = words4(scales + select(0u, ROW_UNITS, five) + (unit / 8u) * 4u);
    if (five) { r.scale = w[scales + unit]; }
    return r;
  }
  r.scale = w[scales + select(unit / 2u, unit, QTYPE == 1003u || QTYPE == 1100u)];
  return r;
}

fn planar_unit(r: UnitWords, unit: u32) -> Unit {
  var v: Unit;
  let dd = unpack2x16float(r.scale);
  if (QTYPE == 1003u) {
    q4_quants(r.qa, dd.x, dd.y, 0.0, 0u, &v);
  } else if (QTYPE == 1014u) {
    let sc = q6k_scales(r.qb.z, unpack2x16float(r.qb.w).x);
    for (var k = 0u; k < 4u; k++) {
      v[k] = (vec4<f32>(bytes4(q6k_word(r.qa, r.qb.xy, k))) - 32.0) * sc.x;
      v[k + 4u] = (vec4<f32>(bytes4(q6k_word(r.qa, r.qb.xy, k + 4u))) - 32.0) * sc.y;
    }
  } else if (QTYPE == 1012u) {
    let sm = q4k_unit_scale(r.qb, unit % 8u);
    q4_quants(r.qa, sm.x, sm.y, 0.0, 0u, &v);
  } else if (QTYPE == 1013u) {
    let sm = q4k_unit_scale(r.qb, unit % 8u);
    for (var k = 0u; k < 4u; k++) {
      v[k] = vec4<f32>(bytes4(q5k_word(r.qa, r.scale, k))) * sm.x + sm.y;
      v[k + 4u] = vec4<f32>(bytes4(q5k_word(r.qa, r.scale, k + 4u))) * sm.x + sm.y;
    }
  } else if (QTYPE == 1100u) {
    q4_quants(r.qa, bitcast<f32>(r.scale), 0.0, -8.0, 0u, &v);
  } else if (QTYPE == 1008u) {
    q8_quants(r.qa, r.qb, select(dd.x, dd.y, unit % 2u == 1u), &v);
  } else {
    q4_quants(r.qa, select(dd.x, dd.y, unit % 2u == 1u), 0.0, -8.0, 0u, &v);
  }
  return v;
}

fn fetch_unit(row_base: u32, unit: u32) -> UnitWords {
  if (QTYPE >= 1000u) { return planar_words(row_base, unit); }
  var v: Unit;
  decode_unit(row_base, unit, &v);
  var r: UnitWords;
  r.v = v;
  return r;
}

fn unit_from(r: UnitWords, unit: u32) -> Unit {
  if (QTYPE >= 1000u) { return planar_unit(r, unit); }
  return r.v;
}

// The non-linear 4-bit codebook of IQ4_NL and IQ4_XS.
var<private> IQ4_VALUES: array<f32, 16> = array<f32, 16>(-127.0, -104.0, -83.0, -65.0, -49.0, -35.0, -22.0, -10.0,
                                                         1.0, 13.0, 25.0, 38.0, 53.0, 69.0, 89.0, 113.0);

fn iq4_lookup(q: vec4<u32>) -> vec4<f32> {
  return vec4<f32>(IQ4_VALUES[q.x], IQ4_VALUES[q.y], IQ4_VALUES[q.z], IQ4_VALUES[q.w]);
}

// IQ4_NL [2 pad][d][16 B]: d * codebook[q], nibbles as in Q4_0.
// IQ4_XS [d][scales_h u16][scales_l 4 B][8 x 16 B]: sub-block s has the 6-bit
// scale (nibble s of scales_l) | (bits 2s..2s+1 of scales_h) << 4, minus 32.
fn decode_iq4(base: u32, sub: u32, v: ptr<function, Unit>) {
  var d: f32;
  var qw: u32;
  if (QTYPE == 20u) {
    d = unpack2x16float(w[base]).y;
    qw = base + 1u;
  } else {
    let head = w[base];
    let ls = ((w[base + 1u] >> (4u * sub)) & 15u) | (((head >> (16u + 2u * sub)) & 3u) << 4u);
    d = unpack2x16float(head).x * f32(i32(ls) - 32);
    qw = base + 2u + 4u * sub;
  }
  for (var k = 0u; k < 4u; k++) {
    let b = bytes4(w[qw + k]);
    (*v)[k] = d * iq4_lookup(b & vec4<u32>(15u));
    (*v)[k + 4u] = d * iq4_lookup(b >> vec4<u32>(4u));
  }
}

// Q2_K [scales 16 B][qs 64 B][d][dmin]: q = 2 bits, scale byte = (min << 4) | scale.
// Q3_K [hmask 32 B][qs 64 B][scales 12 B][d][2 pad]: q = 2 bits - (hmask bit clear ? 4 : 0),
// 16 six-bit scales minus 32. In both, unit u takes its 2 bits from
// qs[32 (u / 4) + l] >> 2 (u % 4); its two 16-element halves have scales 2u, 2u + 1.
fn decode_q2k_q3k(base: u32, sub: u32, v: ptr<function, Unit>) {
  let three = QTYPE == 11u;
  let qw = base + select(4u, 8u, three) + 8u * (sub / 4u);
  let shift = vec4<u32>(2u * (sub % 4u));
  let dd = unpack2x16float(w[base + select(20u, 27u, three)]);
  for (var half = 0u; half < 2u; half++) {
    let i = 2u * sub + half;
    var scale: f32;
    var minv = 0.0;
    if (three) {
      let lo = (wbyte(base, 96u + i % 8u) >> (4u * (i / 8u))) & 15u;
      let hi = (wbyte(base, 104u + i % 4u) >> (2u * (i / 4u))) & 3u;
      scale = dd.x * f32(i32(lo | (hi << 4u)) - 32);
    } else {
      let sc = wbyte(base, i);
      scale = dd.x * f32(sc & 15u);
      minv = dd.y * f32(sc >> 4u);
    }
    for (var k = 4u * half; k < 4u * half + 4u; k++) {
      var q = vec4<f32>((bytes4(w[qw + k]) >> shift) & vec4<u32>(3u));
      if (three) {
        q -= 4.0 * vec4<f32>(vec4<u32>(1u) - ((bytes4(w[base + k]) >> vec4<u32>(sub)) & vec4<u32>(1u)));
      }
      (*v)[k] = q * scale - minv;
    }
  }
}

// Q4_K's and Q5_K's 6-bit scale and min of sub-block s, from the 12 scale bytes at byte 4.
fn q4k_scale_min(base: u32, s: u32) -> vec2<f32> {
  if (s < 4u) {
    return vec2<f32>(f32(wbyte(base, 4u + s) & 63u), f32(wbyte(base, 8u + s) & 63u));
  }
  let sc = (wbyte(base, 8u + s) & 15u) | ((wbyte(base, s) >> 6u) << 4u);
  let m = (wbyte(base, 8u + s) >> 4u) | ((wbyte(base, 4u + s) >> 6u) << 4u);
  return vec2<f32>(f32(sc), f32(m));
}

// Q4_K [d][dmin][12 B scales][128 B quants]; Q5_K adds [32 B qh] before the
// quants (bit s of qh[l] is the fifth bit of element l of sub-block s).
// Sub-blocks 2p and 2p+1 share 32 quant bytes at 32p: low nibbles, then high.
fn decode_q4k_q5k(base: u32, sub: u32, v: ptr<function, Unit>) {
  let five = QTYPE == 13u;
  let dd = unpack2x16float(w[base]);
  let sm = q4k_scale_min(base, sub);
  let scale = dd.x * sm.x;
  let minv = dd.y * sm.y;
  let shift = vec4<u32>(4u * (sub % 2u));
  let qw = base + select(4u, 12u, five) + 8u * (sub / 2u);
  for (var k = 0u; k < 8u; k++) {
    var q = (bytes4(w[qw + k]) >> shift) & vec4<u32>(15u);
    if (five) { q |= ((bytes4(w[base + 4u + k]) >> vec4<u32>(sub)) & vec4<u32>(1u)) << vec4<u32>(4u); }
    (*v)[k] = vec4<f32>(q) * scale - minv;
  }
}

// Q6_K: [128 B low 4 bits][64 B high 2 bits][16 x int8 scales][d f16][2 pad].
// Half h = sub / 4 covers 128 elements; quadrant q = sub % 4 is elements
// 32q..32q+31 of it: low bits from ql[h*64 + (q%2)*32 + l] (low nibble for
// q < 2, high for q >= 2), high bits from qh[h*32 + l] >> 2q, scale
// sc[h*8 + l/16 + 2q].
fn decode_q6k(base: u32, sub: u32, v: ptr<function, Unit>) {
  let h = sub / 4u;
  let q = sub % 4u;
  let d = unpack2x16float(w[base + 52u]).x;
  for (var k = 0u; k < 8u; k++) {
    let lob = bytes4(w[base + h * 16u + (q % 2u) * 8u + k]);
    let lo = select(lob & vec4<u32>(15u), lob >> vec4<u32>(4u), q >= 2u);
    let hi = (bytes4(w[base + 32u + h * 8u + k]) >> vec4<u32>(2u * q)) & vec4<u32>(3u);
    let sc = sext8(wbyte(base, 192u + h * 8u + k / 4u + 2u * q));
    (*v)[k] = d * sc * (vec4<f32>(lo | (hi << vec4<u32>(4u))) - 32.0);
  }
}

// Writes the 32 values of unit `unit` of the row starting at word `row_base` into v.
fn decode_unit(row_base: u32, unit: u32, v: ptr<function, Unit>) {
  let base = row_base + (unit / BLOCK_UNITS) * BLOCK_WORDS;
  let sub = unit % BLOCK_UNITS;
  switch QTYPE {
    case 0u: { decode_f32(base, v); }
    case 1u: { decode_f16(base, v); }
    case 2u, 3u, 6u, 7u, 100u: { decode_q4_q5(base, v); }
    case 8u: { decode_q8_0(base, v); }
    case 10u, 11u: { decode_q2k_q3k(base, sub, v); }
    case 12u, 13u: { decode_q4k_q5k(base, sub, v); }
    case 20u, 23u: { decode_iq4(base, sub, v); }
    case 1002u, 1003u, 1008u, 1012u, 1013u, 1014u, 1100u: { decode_planar(row_base, unit, v); }
    default: { decode_q6k(base, sub, v); }
  }
}
