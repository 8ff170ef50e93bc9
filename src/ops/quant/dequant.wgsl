// Dequantization of ggml block formats, shared by the quantized linear and
// embedding shaders (prepended to them by the op's C++). Weights sit in `w`
// as rows of blocks, each block padded to whole 32-bit words (quant_layout.h
// says where the padding goes; no value changes). A "unit" is 32 consecutive
// elements of a row: one block for 32-element formats, an eighth of a
// super-block for the K-quants.
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

fn byte_of(word: u32, i: u32) -> u32 {
  return (word >> (8u * i)) & 0xffu;
}

fn wbyte(base: u32, byte: u32) -> u32 {
  return byte_of(w[base + byte / 4u], byte % 4u);
}

fn sext8(b: u32) -> f32 {
  return f32(i32(b << 24u) >> 24u);
}

// Q4_K's 6-bit scale and min of sub-block s, from the 12 scale bytes.
fn q4k_scale_min(base: u32, s: u32) -> vec2<f32> {
  if (s < 4u) {
    return vec2<f32>(f32(wbyte(base, 4u + s) & 63u), f32(wbyte(base, 8u + s) & 63u));
  }
  let sc = (wbyte(base, 8u + s) & 15u) | ((wbyte(base, s) >> 6u) << 4u);
  let m = (wbyte(base, 8u + s) >> 4u) | ((wbyte(base, 4u + s) >> 6u) << 4u);
  return vec2<f32>(f32(sc), f32(m));
}

// Writes the 32 values of unit `unit` of the row starting at word `row_base`.
fn load_unit(row_base: u32, unit: u32, v: ptr<function, array<f32, 32>>) {
  let upb = units_per_block();
  let base = row_base + (unit / upb) * stride_words();
  let sub = unit % upb;
  switch QTYPE {
    case 0u: {
      for (var i = 0u; i < 32u; i++) { (*v)[i] = bitcast<f32>(w[base + i]); }
    }
    case 1u: {
      for (var i = 0u; i < 16u; i++) {
        let h = unpack2x16float(w[base + i]);
        (*v)[2u * i] = h.x;
        (*v)[2u * i + 1u] = h.y;
      }
    }
    case 2u, 3u: {
      // Q4_0: [2 pad][d f16][16 B quants]; Q4_1: [d f16][m f16][16 B quants].
      // Byte j holds element j (low nibble) and element j + 16 (high nibble).
      // Q4_0 is (q - 8) * d, Q4_1 is q * d + m.
      let dm = unpack2x16float(w[base]);
      let q40 = QTYPE == 2u;
      let d = select(dm.x, dm.y, q40);
      let m = select(dm.y, 0.0, q40);
      let off = select(0.0, -8.0, q40);
      for (var k = 0u; k < 4u; k++) {
        let q = w[base + 1u + k];
        for (var j = 0u; j < 4u; j++) {
          let b = byte_of(q, j);
          (*v)[4u * k + j] = (f32(b & 15u) + off) * d + m;
          (*v)[4u * k + j + 16u] = (f32(b >> 4u) + off) * d + m;
        }
      }
    }
    case 8u: {
      // [2 pad][d f16][32 x int8]
      let d = unpack2x16float(w[base]).y;
      for (var k = 0u; k < 8u; k++) {
        let q = w[base + 1u + k];
        for (var j = 0u; j < 4u; j++) { (*v)[4u * k + j] = sext8(byte_of(q, j)) * d; }
      }
    }
    case 12u: {
      // [d f16][dmin f16][12 B scales][128 B quants]; sub-blocks 2p and 2p+1
      // share 32 quant bytes at 16 + 32p: low nibbles, then high nibbles.
      let dd = unpack2x16float(w[base]);
      let sm = q4k_scale_min(base, sub);
      let scale = dd.x * sm.x;
      let minv = dd.y * sm.y;
      let shift = 4u * (sub % 2u);
      let qbase = base + 4u + 8u * (sub / 2u);
      for (var k = 0u; k < 8u; k++) {
        let q = w[qbase + k];
        for (var j = 0u; j < 4u; j++) {
          (*v)[4u * k + j] = f32((byte_of(q, j) >> shift) & 15u) * scale - minv;
        }
      }
    }
    default: {
      // Q6_K: [128 B low 4 bits][64 B high 2 bits][16 x int8 scales][d f16][2 pad].
      // Half h = sub / 4 covers 128 elements; quadrant q = sub % 4 is elements
      // 32q..32q+31 of it.
      let h = sub / 4u;
      let q = sub % 4u;
      let d = unpack2x16float(w[base + 52u]).x;
      for (var l = 0u; l < 32u; l++) {
        let lo_byte = wbyte(base, h * 64u + l + (q % 2u) * 32u);
        let lo = select(lo_byte & 15u, lo_byte >> 4u, q >= 2u);
        let hi = (wbyte(base, 128u + h * 32u + l) >> (2u * q)) & 3u;
        let sc = sext8(wbyte(base, 192u + h * 8u + l / 16u + 2u * q));
        (*v)[l] = d * sc * f32(i32(lo | (hi << 4u)) - 32);
      }
    }
  }
}
