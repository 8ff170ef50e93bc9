// Helpers of the int8 kernels in qdq/ (imported by each kernel).
// Int8 tensors are packed four to a u32 word, element i in byte i % 4.

// The signed byte b (0..3) of a word.
fn sbyte(word: u32, b: u32) -> i32 { return bitcast<i32>(word << (24u - 8u * b)) >> 24u; }

// quantize_per_tensor to int8 (round half to even, then the zero point, then
// the clamp), as a byte ready to be shifted into its word.
fn requantize_byte(y: f32, inv_scale: f32, zp: i32) -> u32 {
  let q = i32(clamp(round(y * inv_scale) + f32(zp), -128.0, 127.0));
  return bitcast<u32>(q) & 0xffu;
}
