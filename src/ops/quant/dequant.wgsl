// Decoding of ggml block formats, shared by the quantized linear and
// embedding shaders (prepended to them by the op's C++). Weights sit in `w`
// as rows of blocks, each block padded to whole 32-bit words (quant_layout.h
// says where the padding goes; no value changes). A "unit" is 32 consecutive
// elements of a row: one block for 32-element formats, an eighth of a
// super-block for the K-quants. decode_unit gives a unit as 8 vec4s, built
// from whole-word loads and vector bit operations (no per-element loads).
//
// QTYPE is the ggml type id: 0 F32, 1 F16, 2 Q4_0, 3 Q4_1, 8 Q8_0, 12 Q4_K, 14 Q6_K.
override QTYPE: u32 = 3;

fn stride_words() -> u32 {
  switch QTYPE {
    case 0u: { return 32u; }
    case 1u: { return 16u; }
    case 2u, 3u: { return 5u; }
    case 8u: { return 9u; }
    case 12u: { return 36u; }
    default: { return 53u; }  // Q6_K
  }
}

fn units_per_block() -> u32 {
  if (QTYPE == 12u || QTYPE == 14u) { return 8u; }
  return 1u;
}

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

// Q4_K's 6-bit scale and min of sub-block s, from the 12 scale bytes at byte 4.
fn q4k_scale_min(base: u32, s: u32) -> vec2<f32> {
  if (s < 4u) {
    return vec2<f32>(f32(wbyte(base, 4u + s) & 63u), f32(wbyte(base, 8u + s) & 63u));
  }
  let sc = (wbyte(base, 8u + s) & 15u) | ((wbyte(base, s) >> 6u) << 4u);
  let m = (wbyte(base, 8u + s) >> 4u) | ((wbyte(base, 4u + s) >> 6u) << 4u);
  return vec2<f32>(f32(sc), f32(m));
}

// Writes the 32 values of unit `unit` of the row starting at word `row_base`
// as v[0..8] (elements 4k..4k+3 in v[k]).
fn decode_unit(row_base: u32, unit: u32, v: ptr<function, array<vec4<f32>, 8>>) {
  let upb = units_per_block();
  let base = row_base + (unit / upb) * stride_words();
  let sub = unit % upb;
  switch QTYPE {
    case 0u: {
      for (var k = 0u; k < 8u; k++) {
        (*v)[k] = bitcast<vec4<f32>>(vec4<u32>(w[base + 4u * k], w[base + 4u * k + 1u], w[base + 4u * k + 2u],
                                               w[base + 4u * k + 3u]));
      }
    }
    case 1u: {
      for (var k = 0u; k < 8u; k++) {
        (*v)[k] = vec4<f32>(unpack2x16float(w[base + 2u * k]), unpack2x16float(w[base + 2u * k + 1u]));
      }
    }
    case 2u, 3u: {
      // Q4_0: [2 pad][d f16][16 B quants], (q - 8) * d. Q4_1: [d][m][16 B quants], q * d + m.
      // Byte j holds element j (low nibble) and element j + 16 (high nibble).
      let dm = unpack2x16float(w[base]);
      let q40 = QTYPE == 2u;
      let d = select(dm.x, dm.y, q40);
      let m = select(dm.y, 0.0, q40);
      let off = select(0.0, -8.0, q40);
      for (var k = 0u; k < 4u; k++) {
        let b = bytes4(w[base + 1u + k]);
        (*v)[k] = (vec4<f32>(b & vec4<u32>(15u)) + off) * d + m;
        (*v)[k + 4u] = (vec4<f32>(b >> vec4<u32>(4u)) + off) * d + m;
      }
    }
    case 8u: {
      // [2 pad][d f16][32 x int8]
      let d = unpack2x16float(w[base]).y;
      for (var k = 0u; k < 8u; k++) {
        let q = w[base + 1u + k];
        let s = vec4<i32>(bitcast<i32>(q << 24u), bitcast<i32>(q << 16u), bitcast<i32>(q << 8u), bitcast<i32>(q)) >>
                vec4<u32>(24u);
        (*v)[k] = vec4<f32>(s) * d;
      }
    }
    case 12u: {
      // [d f16][dmin f16][12 B scales][128 B quants]; sub-blocks 2p and 2p+1
      // share 32 quant bytes at 16 + 32p: low nibbles, then high nibbles.
      let dd = unpack2x16float(w[base]);
      let sm = q4k_scale_min(base, sub);
      let scale = dd.x * sm.x;
      let minv = dd.y * sm.y;
      let shift = vec4<u32>(4u * (sub % 2u));
      let qbase = base + 4u + 8u * (sub / 2u);
      for (var k = 0u; k < 8u; k++) {
        (*v)[k] = vec4<f32>((bytes4(w[qbase + k]) >> shift) & vec4<u32>(15u)) * scale - minv;
      }
    }
    default: {
      // Q6_K: [128 B low 4 bits][64 B high 2 bits][16 x int8 scales][d f16][2 pad].
      // Half h = sub / 4 covers 128 elements; quadrant q = sub % 4 is elements
      // 32q..32q+31 of it: low bits from ql[h*64 + (q%2)*32 + l] (low nibble
      // for q < 2, high for q >= 2), high bits from qh[h*32 + l] >> 2q, scale
      // sc[h*8 + l/16 + 2q].
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
  }
}
