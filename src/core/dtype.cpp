#include "wgrt/dtype.h"

// __builtin_bit_cast rather than std::bit_cast: the web build's libc++
// (emscripten 3.1.6) lacks the latter, which wraps the same builtin.

namespace wgrt {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::F32: return "f32";
    case DType::F16: return "f16";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::U8: return "u8";
    case DType::I8: return "i8";
    case DType::Bool: return "bool";
  }
  return "?";
}

size_t host_size(DType t) {
  switch (t) {
    case DType::F32: case DType::I32: return 4;
    case DType::F16: return 2;
    case DType::I64: return 8;
    case DType::U8: case DType::I8: case DType::Bool: return 1;
  }
  return 0;
}

size_t device_size(DType t) { return t == DType::I64 ? 4 : host_size(t); }

float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);  // inf / nan (payload kept)
  } else if (exp != 0) {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;  // signed zero
  } else {
    // Subnormal half: normalise the mantissa into an f32 normal.
    int e = -1;
    do {
      mant <<= 1;
      ++e;
    } while ((mant & 0x400) == 0);
    bits = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3FF) << 13);
  }
  return __builtin_bit_cast(float, bits);
}

float bf16_to_f32(uint16_t bits) { return __builtin_bit_cast(float, static_cast<uint32_t>(bits) << 16); }

uint16_t f32_to_f16(float value) {
  const uint32_t x = __builtin_bit_cast(uint32_t, value);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) return sign | (abs > 0x7F800000u ? 0x7E00 : 0x7C00);  // NaN (quiet) or inf
  if (abs >= 0x477FF000u) return sign | 0x7C00;  // rounds past 65504: inf
  if (abs < 0x38800000u) {
    // Below the smallest normal half (2^-14): a subnormal or zero. Shift the
    // mantissa (with its implicit 1) into place and round to nearest even.
    if (abs < 0x33000000u) return sign;  // below half the smallest subnormal (2^-25)
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // 14 + (127 - 15 - exp) ... into units of 2^-24
    uint32_t h = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1))) ++h;
    return sign | static_cast<uint16_t>(h);
  }
  // Normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even
  // (a carry into the exponent is the correct result).
  uint32_t h = ((abs >> 23) - 112) << 10 | ((abs >> 13) & 0x3FF);
  const uint32_t rest = abs & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
  return sign | static_cast<uint16_t>(h);
}

}  // namespace wgrt
