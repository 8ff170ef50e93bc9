// The values of Q5_K and Q6_K units in wgrt's planar layout (quant_layout.h):
// 16 bytes of low nibbles (Q4_0's order: byte b holds elements b and b + 16)
// and high bits. Q5_K: one word, byte c holding the fifth bits of elements
// 4j + c at bit j (scales and mins: q4k_header.wgsl). Q6_K: two words
// (elements 0-15 and 16-31), byte c holding the bit pairs of elements
// 4i + c at bit 2i; two int8 scales (elements 0-15 and 16-31) and the
// super-block's f16 d.

// The nibbles of elements 4j..4j+3 of a unit (j < 8), byte c holding 4j + c.
fn unit_nibbles(lo: vec4<u32>, j: u32) -> u32 {
  return (lo[j % 4u] >> select(0u, 4u, j >= 4u)) & 0x0f0f0f0fu;
}

// Q5_K's 5-bit values (0..31) of elements 4j..4j+3 as one packed word.
fn q5k_word(lo: vec4<u32>, hi: u32, j: u32) -> u32 {
  return unit_nibbles(lo, j) | (((hi >> j) & 0x01010101u) << 4u);
}

// The 6-bit values (0..63, the file's q + 32) of elements 4j..4j+3 of a unit
// as one packed word, byte c holding element 4j + c.
fn q6k_word(lo: vec4<u32>, hi: vec2<u32>, j: u32) -> u32 {
  return unit_nibbles(lo, j) | (((hi[j / 4u] >> (2u * (j % 4u))) & 0x03030303u) << 4u);
}

// The unit's two scales times d, from the 16 bits holding its int8 scales
// (elements 0-15 low, 16-31 high) and d.
fn q6k_scales(scale_bits: u32, d: f32) -> vec2<f32> {
  let s = vec2<i32>(bitcast<i32>(scale_bits << 24u), bitcast<i32>(scale_bits << 16u)) >> vec2<u32>(24u);
  return d * vec2<f32>(s);
}
