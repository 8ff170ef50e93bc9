// Random but well-formed ggml blocks for GPU kernel tests (quants uniform,
// scales moderate and finite), in the file layout.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "ops/quant/quant_layout.h"

namespace wgrt::test {

inline uint16_t f32_to_f16(float f) {
  // Round-to-nearest for normal values in f16 range (the test picks such values).
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (exp <= 0) return uint16_t(sign);
  uint32_t h = sign | (uint32_t(exp) << 10) | (mant >> 13);
  if ((mant >> 12) & 1u) ++h;
  return uint16_t(h);
}

// Random but well-formed blocks of a type: quants uniform, scales moderate.
inline std::vector<uint8_t> random_blocks(const ops::QuantLayout& l, int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> scale(0.002f, 0.05f), value(-1.0f, 1.0f);
  const int64_t blocks = rows * cols / l.block_elems;
  std::vector<uint8_t> out(blocks * l.file_bytes);
  auto put16 = [](uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); };
  for (int64_t b = 0; b < blocks; ++b) {
    uint8_t* p = out.data() + b * l.file_bytes;
    for (uint32_t i = 0; i < l.file_bytes; ++i) p[i] = uint8_t(byte(rng));
    switch (l.ggml_type) {
      case 0:
        for (int i = 0; i < 32; ++i) { const float v = value(rng); std::memcpy(p + 4 * i, &v, 4); }
        break;
      case 1:
        for (int i = 0; i < 32; ++i) put16(p + 2 * i, f32_to_f16(value(rng)));
        break;
      case 2: case 6: case 8: put16(p, f32_to_f16(scale(rng))); break;
      case 3: put16(p, f32_to_f16(scale(rng))); put16(p + 2, f32_to_f16(-8 * scale(rng))); break;
      case 7: put16(p, f32_to_f16(scale(rng))); put16(p + 2, f32_to_f16(-16 * scale(rng))); break;
      case 10: put16(p + 80, f32_to_f16(scale(rng) / 4)); put16(p + 82, f32_to_f16(scale(rng) / 4)); break;
      case 11: put16(p + 108, f32_to_f16(scale(rng) / 16)); break;
      case 12: case 13: put16(p, f32_to_f16(scale(rng) / 8)); put16(p + 2, f32_to_f16(scale(rng) / 8)); break;
      case 14: put16(p + 208, f32_to_f16(scale(rng) / 16)); break;
      case 20: put16(p, f32_to_f16(scale(rng) / 16)); break;  // normal f16 (see IQ4_XS)
      // IQ4_XS: d * (6-bit scale - 32) * codebook; d kept a normal f16 (f32_to_f16
      // flushes subnormals, which would make every weight 0).
      case 23: put16(p, f32_to_f16(scale(rng) / 32)); break;
    }
  }
  return out;
}

}  // namespace wgrt::test
