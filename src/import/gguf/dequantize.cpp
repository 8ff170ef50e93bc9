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
//   Q5_0: d, qh[4], qs[16]    Q4_0's nibbles with bit j of qh (u32) as bit 4, value = d*(q - 16)
//   Q5_1: d, m, qh[4], qs[16] the same 5-bit q, value = d*q + m
//   Q8_0: d, qs[32] (int8)    value = q*d
//   Q2_K: scales[16] (min << 4 | scale), qs[64] (2 bits), d, dmin
//   Q3_K: hmask[32], qs[64] (2 bits), scales[12] (16 packed 6-bit), d
//   Q4_K: d, dmin, scales[12] (8 packed 6-bit scale/min pairs), qs[128]
//   Q5_K: d, dmin, scales[12], qh[32], qs[128]
//   Q6_K: ql[128], qh[64], scales[16] (int8), d
//   IQ4_NL: d, qs[16]         Q4_0's nibbles through a 16-entry codebook, value = d*code
//   IQ4_XS: d, scales_h (u16), scales_l[4], qs[128]: 8 sub-blocks of IQ4_NL's layout

uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// The 32 values of a Q4_0/Q5_0 (kSymmetric) or Q4_1/Q5_1 block; kFive adds
// qh's fifth bits.
template <bool kSymmetric, bool kFive>
void q4_q5(const uint8_t* b, float* y) {
  const float d = load_f16(b);
  const float m = kSymmetric ? 0.0f : load_f16(b + 2);
  const uint8_t* p = b + (kSymmetric ? 2 : 4);
  const uint32_t qh = kFive ? load_u32(p) : 0;
  const uint8_t* qs = p + (kFive ? 4 : 0);
  constexpr int kOffset = kSymmetric ? (kFive ? 16 : 8) : 0;
  for (int j = 0; j < 16; ++j) {
    const int lo = (qs[j] & 0x0F) | int(((qh >> j) & 1) << 4);
    const int hi = (qs[j] >> 4) | int(((qh >> (j + 16)) & 1) << 4);
    if constexpr (kSymmetric) {
      y[j] = d * static_cast<float>(lo - kOffset);
      y[j + 16] = d * static_cast<float>(hi - kOffset);
    } else {
      const float a = d * static_cast<float>(lo);
      const float c = d * static_cast<float>(hi);
      y[j] = a + m;
      y[j + 16] = c + m;
    }
  }
}

void q8_0(const uint8_t* b, float* y) {
  const float d = load_f16(b);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<int8_t>(b[2 + j])) * d;
}

// Q2_K and Q3_K share the 2-bit layout: value 128h + 32j + l takes bits
// 2j..2j+1 of qs[32h + l]; each 16 values have their own scale.
void q2_k(const uint8_t* b, float* y) {
  const uint8_t* scales = b;
  const uint8_t* qs = b + 16;
  const float d = load_f16(b + 80);
  const float dmin = load_f16(b + 82);
  for (int i = 0; i < 256; ++i) {
    const int h = i / 128, j = (i % 128) / 32, l = i % 32;
    const float dl = d * static_cast<float>(scales[i / 16] & 0x0F);
    const float ml = dmin * static_cast<float>(scales[i / 16] >> 4);
    const float scaled = dl * static_cast<float>((qs[32 * h + l] >> (2 * j)) & 3);
    y[i] = scaled - ml;
  }
}

// Q3_K's 16 scales: the low 4 bits are nibble (s / 8) of byte s % 8, the top
// 2 bits are bits 2 (s / 4).. of byte 8 + s % 4; stored plus 32. The third
// bit of value i is set unless bit i / 32 of hmask[i % 32] is.
void q3_k(const uint8_t* b, float* y) {
  const uint8_t* hmask = b;
  const uint8_t* qs = b + 32;
  const uint8_t* sc = b + 96;
  const float d = load_f16(b + 108);
  for (int i = 0; i < 256; ++i) {
    const int h = i / 128, j = (i % 128) / 32, l = i % 32, s = i / 16;
    const int scale = (((sc[s % 8] >> (4 * (s / 8))) & 0x0F) | (((sc[8 + s % 4] >> (2 * (s / 4))) & 3) << 4)) - 32;
    const float dl = d * static_cast<float>(scale);
    const int q = ((qs[32 * h + l] >> (2 * j)) & 3) - (((hmask[l] >> (i / 32)) & 1) ? 0 : 4);
    y[i] = dl * static_cast<float>(q);
  }
}

// Scale and min of Q4_K/Q5_K sub-block j (0..7) from the 12 packed bytes: the
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

// Q4_K, and Q5_K (kFive) whose qh[l] bit j is the fifth bit of value 32j + l.
template <bool kFive>
void q4_q5_k(const uint8_t* b, float* y) {
  const float d = load_f16(b);
  const float dmin = load_f16(b + 2);
  const uint8_t* scales = b + 4;
  const uint8_t* qh = b + 16;
  const uint8_t* qs = b + (kFive ? 48 : 16);
  // Four chunks of 64 values; each chunk's 32 bytes give sub-block 2c (low
  // nibbles) and 2c+1 (high nibbles).
  for (int c = 0; c < 4; ++c) {
    for (int half = 0; half < 2; ++half) {
      const int sub = 2 * c + half;
      uint8_t sc, mn;
      q4_k_scale_min(scales, sub, sc, mn);
      const float dl = d * static_cast<float>(sc);
      const float ml = dmin * static_cast<float>(mn);
      for (int l = 0; l < 32; ++l) {
        int q = half == 0 ? (qs[32 * c + l] & 0x0F) : (qs[32 * c + l] >> 4);
        if constexpr (kFive) q |= ((qh[l] >> sub) & 1) << 4;
        const float scaled = dl * static_cast<float>(q);
        y[32 * sub + l] = scaled - ml;
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

// The non-linear 4-bit codebook of IQ4_NL and IQ4_XS.
constexpr int8_t kIq4Values[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

void iq4_values(float d, const uint8_t* qs, float* y) {
  for (int j = 0; j < 16; ++j) {
    y[j] = d * static_cast<float>(kIq4Values[qs[j] & 0x0F]);
    y[j + 16] = d * static_cast<float>(kIq4Values[qs[j] >> 4]);
  }
}

void iq4_nl(const uint8_t* b, float* y) { iq4_values(load_f16(b), b + 2, y); }

// Sub-block s's scale: nibble s % 2 of scales_l[s / 2], with bits 2s..2s+1
// of scales_h on top; stored plus 32.
void iq4_xs(const uint8_t* b, float* y) {
  const float d = load_f16(b);
  const uint16_t scales_h = load_u16(b + 2);
  for (int s = 0; s < 8; ++s) {
    const int ls = ((b[4 + s / 2] >> (4 * (s % 2))) & 0x0F) | (((scales_h >> (2 * s)) & 3) << 4);
    iq4_values(d * static_cast<float>(ls - 32), b + 8 + 16 * s, y + 32 * s);
  }
}

template <class Block>
void blocks(std::span<const uint8_t> bytes, std::span<float> out, uint32_t block_bytes,
            uint32_t block_size, Block decode) {
  const size_t n = out.size() / block_size;
  for (size_t i = 0; i < n; ++i) decode(bytes.data() + i * block_bytes, out.data() + i * block_size);
}

}  // namespace


void dequantize(GgmlType type, std::span<const uint8_t> bytes, std::span<float> out) {
  if (!is_supported(type)) {
    throw Error(ErrorCode::NotSupported, "cannot dequantize ggml type " + describe(type) +
                                             ": wgrt supports " + supported_type_names());
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
    case GgmlType::Q4_0: return blocks(bytes, out, bb, bs, q4_q5<true, false>);
    case GgmlType::Q4_1: return blocks(bytes, out, bb, bs, q4_q5<false, false>);
    case GgmlType::Q5_0: return blocks(bytes, out, bb, bs, q4_q5<true, true>);
    case GgmlType::Q5_1: return blocks(bytes, out, bb, bs, q4_q5<false, true>);
    case GgmlType::Q8_0: return blocks(bytes, out, bb, bs, q8_0);
    case GgmlType::Q2_K: return blocks(bytes, out, bb, bs, q2_k);
    case GgmlType::Q3_K: return blocks(bytes, out, bb, bs, q3_k);
    case GgmlType::Q4_K: return blocks(bytes, out, bb, bs, q4_q5_k<false>);
    case GgmlType::Q5_K: return blocks(bytes, out, bb, bs, q4_q5_k<true>);
    case GgmlType::Q6_K: return blocks(bytes, out, bb, bs, q6_k);
    case GgmlType::IQ4_NL: return blocks(bytes, out, bb, bs, iq4_nl);
    case GgmlType::IQ4_XS: return blocks(bytes, out, bb, bs, iq4_xs);
    default: break;
  }
  throw Error(ErrorCode::Internal, "dequantize: no decoder for supported type " + describe(type));
}

std::vector<float> dequantize_tensor(const GgufFile& file, const TensorInfo& info) {
  if (!is_supported(info.type)) {
    throw Error(ErrorCode::NotSupported, "gguf '" + file.name() + "': tensor '" + info.name +
                                             "' has ggml type " + describe(info.type) +
                                             ", which wgrt does not support (supported: " +
                                             supported_type_names() + ")");
  }
  std::vector<float> out(info.n_elements);
  dequantize(info.type, file.read_tensor(info), out);
  return out;
}

}  // namespace wgrt::gguf
