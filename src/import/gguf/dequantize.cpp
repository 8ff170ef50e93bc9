#include "import/gguf/dequantize.h"

#include <bit>
#include <cstring>
#include <string>

#include "import/gguf/gguf_file.h"
#include "wgrt/error.h"

namespace wgrt::gguf {
namespace {

uint16_t load_u16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

float load_f16(const uint8_t* p) { return f16_to_f32(load_u16(p)); }

// Block layouts (bytes): d is an f16 scale, m/dmin an f16 offset.
//   Q4_0: d, qs[16]           value j (j < 16) = low nibble of qs[j], j+16 = high nibble
//   Q4_1: d, m, qs[16]        same nibbles, value = d*q + m
//   Q8_0: d, qs[32] (int8)    value = q*d
//   Q4_K: d, dmin, scales[12] (8 packed 6-bit scale/min pairs), qs[128]
//   Q6_K: ql[128], qh[64], scales[16] (int8), d

void q4_0(const uint8_t* b, float* y) {
  const float d = load_f16(b);
  const uint8_t* qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    y[j] = d * static_cast<float>((qs[j] & 0x0F) - 8);
    y[j + 16] = d * static_cast<float>((qs[j] >> 4) - 8);
  }
}

void q4_1(const uint8_t* b, float* y) {
  const float d = load_f16(b);
  const float m = load_f16(b + 2);
  const uint8_t* qs = b + 4;
  for (int j = 0; j < 16; ++j) {
    const float lo = d * static_cast<float>(qs[j] & 0x0F);
    const float hi = d * static_cast<float>(qs[j] >> 4);
    y[j] = lo + m;
    y[j + 16] = hi + m;
  }
}

void q8_0(const uint8_t* b, float* y) {
  const float d = load_f16(b);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<int8_t>(b[2 + j])) * d;
}

// Scale and min of Q4_K sub-block j (0..7) from the 12 packed bytes: the
// first four pairs are the low 6 bits of bytes 0..3 / 4..7; the last four
// take their low 4 bits from bytes 8..11 and their top 2 bits from the spare
// high bits of bytes 0..3 (scales) and 4..7 (mins).
void q4_k_scale_min(const uint8_t* s, int j, uint8_t& scale, uint8_t& min) {
  if (j < 4) {
    scale = s[j] & 63;
    min = s[j + 4] & 63;
  } else {
    scale = static_cast<uint8_t>((s[j + 4] & 0x0F) | ((s[j - 4] >> 6) << 4));
    min = static_cast<uint8_t>((s[j + 4] >> 4) | ((s[j] >> 6) << 4));
  }
}

void q4_k(const uint8_t* b, float* y) {
  const float d = load_f16(b);
  const float dmin = load_f16(b + 2);
  const uint8_t* scales = b + 4;
  const uint8_t* qs = b + 16;
  // Four chunks of 64 values; each chunk's 32 bytes give sub-block 2c (low
  // nibbles) and 2c+1 (high nibbles).
  for (int c = 0; c < 4; ++c) {
    for (int half = 0; half < 2; ++half) {
      uint8_t sc, mn;
      q4_k_scale_min(scales, 2 * c + half, sc, mn);
      const float dl = d * static_cast<float>(sc);
      const float ml = dmin * static_cast<float>(mn);
      for (int l = 0; l < 32; ++l) {
        const uint8_t q = half == 0 ? (qs[32 * c + l] & 0x0F) : (qs[32 * c + l] >> 4);
        const float scaled = dl * static_cast<float>(q);
        y[64 * c + 32 * half + l] = scaled - ml;
      }
    }
  }
}

void q6_k(const uint8_t* b, float* y) {
  const uint8_t* ql = b;
  const uint8_t* qh = b + 128;
  const auto* scales = reinterpret_cast<const int8_t*>(b + 192);
  const float d = load_f16(b + 208);
  // Two halves of 128 values: ql 64 bytes and qh 32 bytes each. In a half,
  // value l + 32k (k = 0..3) takes its low 4 bits from ql (the low
  // nibble of ql[l] / ql[l+32] for k = 0 / 1, the high nibble for k = 2 / 3)
  // and its top 2 bits from qh[l] bits 2k..2k+1.
  for (int h = 0; h < 2; ++h) {
    const uint8_t* lo = ql + 64 * h;
    const uint8_t* hi = qh + 32 * h;
    for (int l = 0; l < 32; ++l) {
      const int q[4] = {
          ((lo[l] & 0x0F) | (((hi[l] >> 0) & 3) << 4)) - 32,       // k=0: ql[l] low
          ((lo[l + 32] & 0x0F) | (((hi[l] >> 2) & 3) << 4)) - 32,  // k=1: ql[l+32] low
          ((lo[l] >> 4) | (((hi[l] >> 4) & 3) << 4)) - 32,         // k=2: ql[l] high
          ((lo[l + 32] >> 4) | (((hi[l] >> 6) & 3) << 4)) - 32,    // k=3: ql[l+32] high
      };
      for (int k = 0; k < 4; ++k) {
        const int index = 128 * h + 32 * k + l;
        const float ds = d * static_cast<float>(scales[index / 16]);
        y[index] = ds * static_cast<float>(q[k]);
      }
    }
  }
}

template <class Block>
void blocks(std::span<const uint8_t> bytes, std::span<float> out, uint32_t block_bytes,
            uint32_t block_size, Block decode) {
  const size_t n = out.size() / block_size;
  for (size_t i = 0; i < n; ++i) decode(bytes.data() + i * block_bytes, out.data() + i * block_size);
}

}  // namespace

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
  return std::bit_cast<float>(bits);
}

float bf16_to_f32(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

void dequantize(GgmlType type, std::span<const uint8_t> bytes, std::span<float> out) {
  if (!is_supported(type)) {
    throw Error(ErrorCode::NotSupported, "cannot dequantize ggml type " + describe(type) +
                                             ": wgrt supports F32, F16, BF16, Q4_0, Q4_1, Q8_0, Q4_K, Q6_K");
  }
  const GgmlTypeInfo& info = ggml_type_info(type);
  if (out.size() % info.block_size != 0 ||
      bytes.size() != out.size() / info.block_size * info.block_bytes) {
    throw Error(ErrorCode::InvalidArgument,
                "dequantize " + describe(type) + ": " + std::to_string(out.size()) +
                    " elements need " +
                    std::to_string(out.size() / info.block_size * info.block_bytes) +
                    " bytes in blocks of " + std::to_string(info.block_size) + ", got " +
                    std::to_string(bytes.size()) + " bytes");
  }
  const uint32_t bb = info.block_bytes, bs = info.block_size;
  switch (type) {
    case GgmlType::F32:
      if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
      return;
    case GgmlType::F16:
      for (size_t i = 0; i < out.size(); ++i) out[i] = f16_to_f32(load_u16(bytes.data() + 2 * i));
      return;
    case GgmlType::BF16:
      for (size_t i = 0; i < out.size(); ++i) out[i] = bf16_to_f32(load_u16(bytes.data() + 2 * i));
      return;
    case GgmlType::Q4_0: return blocks(bytes, out, bb, bs, q4_0);
    case GgmlType::Q4_1: return blocks(bytes, out, bb, bs, q4_1);
    case GgmlType::Q8_0: return blocks(bytes, out, bb, bs, q8_0);
    case GgmlType::Q4_K: return blocks(bytes, out, bb, bs, q4_k);
    case GgmlType::Q6_K: return blocks(bytes, out, bb, bs, q6_k);
    default: break;
  }
  throw Error(ErrorCode::Internal, "dequantize: no decoder for supported type " + describe(type));
}

std::vector<float> dequantize_tensor(const GgufFile& file, const TensorInfo& info) {
  if (!is_supported(info.type)) {
    throw Error(ErrorCode::NotSupported, "gguf '" + file.name() + "': tensor '" + info.name +
                                             "' has ggml type " + describe(info.type) +
                                             ", which wgrt does not support (supported: F32, F16, "
                                             "BF16, Q4_0, Q4_1, Q8_0, Q4_K, Q6_K)");
  }
  std::vector<float> out(info.n_elements);
  dequantize(info.type, file.tensor_data(info), out);
  return out;
}

}  // namespace wgrt::gguf
