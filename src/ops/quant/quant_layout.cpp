#include "ops/quant/quant_layout.h"

#include <cstring>
#include <string>

#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

// F32 and F16 are treated as 32-element "blocks" so every format decodes in
// 32-element units.
constexpr QuantLayout kLayouts[] = {
    {0, 32, 128, 0, 128, "F32"},
    {1, 32, 64, 0, 64, "F16"},
    {2, 32, 18, 2, 20, "Q4_0"},     // d, 16 B quants -> [pad 2][d][quants]
    {3, 32, 20, 0, 20, "Q4_1"},     // d, m, 16 B quants: already aligned
    {6, 32, 22, 2, 24, "Q5_0"},     // d, qh[4], 16 B quants -> [pad 2][d][qh][quants]
    {7, 32, 24, 0, 24, "Q5_1"},     // d, m, qh[4], 16 B quants: already aligned
    {8, 32, 34, 2, 36, "Q8_0"},     // d, 32 B quants -> [pad 2][d][quants]
    {10, 256, 84, 0, 84, "Q2_K"},   // scales, qs, d, dmin: already aligned
    {11, 256, 110, 0, 112, "Q3_K"}, // [hmask][qs][scales][d] -> padded at the end
    {12, 256, 144, 0, 144, "Q4_K"}, // already aligned
    {13, 256, 176, 0, 176, "Q5_K"}, // already aligned
    {14, 256, 210, 0, 212, "Q6_K"}, // [ql][qh][scales][d] -> padded at the end
    {20, 32, 18, 2, 20, "IQ4_NL"},  // d, 16 B quants -> [pad 2][d][quants]
    {23, 256, 136, 0, 136, "IQ4_XS"},  // d, scales_h, scales_l, qs: already aligned
    {kQ4F32Type, 32, 20, 0, 20, "Q4_0F32"},  // d f32, 16 B quants: already aligned
};

}  // namespace

const QuantLayout* find_quant_layout(uint32_t ggml_type) {
  for (const QuantLayout& l : kLayouts) {
    if (l.ggml_type == ggml_type) return &l;
  }
  return nullptr;
}

gpu::OverrideConstants decode_constants(const QuantLayout& layout) {
  return {{"QTYPE", layout.ggml_type}, {"BLOCK_WORDS", layout.gpu_bytes / 4}, {"BLOCK_UNITS", layout.block_elems / 32}};
}

uint64_t gpu_row_bytes(const QuantLayout& layout, int64_t cols) {
  return uint64_t(cols / layout.block_elems) * layout.gpu_bytes;
}

uint64_t file_row_bytes(const QuantLayout& layout, int64_t cols) {
  return uint64_t(cols / layout.block_elems) * layout.file_bytes;
}

void repack_for_gpu(const QuantLayout& layout, std::span<const uint8_t> file_bytes, int64_t rows, int64_t cols,
                    std::span<uint8_t> out) {
  if (cols % layout.block_elems != 0 || cols % 32 != 0) {
    throw Error(ErrorCode::NotSupported, "rows of " + std::to_string(cols) + " elements are not whole blocks of " +
                                             std::to_string(layout.block_elems));
  }
  const uint64_t blocks = uint64_t(rows) * uint64_t(cols / layout.block_elems);
  if (file_bytes.size() != blocks * layout.file_bytes || out.size() != blocks * layout.gpu_bytes) {
    throw Error(ErrorCode::InvalidProgram, "quantized data has " + std::to_string(file_bytes.size()) +
                                               " bytes, expected " + std::to_string(blocks * layout.file_bytes));
  }
  if (layout.file_bytes == layout.gpu_bytes) {
    std::memcpy(out.data(), file_bytes.data(), file_bytes.size());
    return;
  }
  std::memset(out.data(), 0, out.size());
  for (uint64_t b = 0; b < blocks; ++b) {
    std::memcpy(out.data() + b * layout.gpu_bytes + layout.front_pad, file_bytes.data() + b * layout.file_bytes,
                layout.file_bytes);
  }
}

std::vector<uint8_t> repack_for_gpu(const QuantLayout& layout, std::span<const uint8_t> file_bytes, int64_t rows,
                                    int64_t cols) {
  const uint64_t blocks = cols % layout.block_elems == 0 ? uint64_t(rows) * uint64_t(cols / layout.block_elems) : 0;
  std::vector<uint8_t> out(blocks * layout.gpu_bytes);
  repack_for_gpu(layout, file_bytes, rows, cols, out);
  return out;
}

namespace {

constexpr uint32_t kQ4K = 12;
constexpr uint32_t kQ5K = 13;
constexpr uint32_t kQ6K = 14;

// Bytes of a 32-element unit's quants and of its share of the scale part in
// the planar layout (Q4_K, Q5_K: a super-block's 16-byte header per 8 units,
// Q5_K's units 16 bytes of nibbles and 4 of fifth bits; Q6_K: 16 bytes of
// low nibbles and 8 of high bits per unit, 16 bytes of scales per
// super-block, then its d, 2 bytes, in a part of its own).
uint32_t planar_quant_bytes(uint32_t type) {
  return type == 8 ? 32 : type == kQ6K ? 24 : type == kQ5K ? 20 : 16;
}
uint32_t planar_scale_bytes(uint32_t type) { return type == 3 || type == kQ4F32Type ? 4 : 2; }

// Eight bytes at a time (the repacking below runs on every K-quant weight at
// load; GGUF and the GPU are little-endian, as is every host wgrt builds for).
uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
void store64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
constexpr uint64_t kNibbles = 0x0f0f0f0f0f0f0f0full;
constexpr uint64_t kPairs = 0x0303030303030303ull;

// A Q4_K super-block ([d][dmin][12 B scales][128 B quants], the quants of
// sub-blocks 2p and 2p + 1 in the low and high nibbles of bytes 32p..32p+31)
// as 8 planar units of 16 bytes (byte b: element b low, b + 16 high, as
// Q4_0's) and its 16-byte header, the file's first 16 bytes unchanged.
// Q5_K ([d][dmin][12 B scales][32 B qh][128 B quants]) passes qs = block +
// 48: its nibbles and header are Q4_K's.
void repack_q4k_superblock(const uint8_t* block, const uint8_t* qs, uint8_t* units, uint8_t* header) {
  std::memcpy(header, block, 16);
  for (int p = 0; p < 4; ++p) {
    for (int half = 0; half < 2; ++half) {  // bytes 0-7, then 8-15 of each unit
      const uint64_t a = load64(qs + 32 * p + 8 * half), b = load64(qs + 32 * p + 16 + 8 * half);
      store64(units + 32 * p + 8 * half, (a & kNibbles) | ((b & kNibbles) << 4));            // unit 2p
      store64(units + 32 * p + 16 + 8 * half, ((a >> 4) & kNibbles) | (b & ~kNibbles));     // unit 2p + 1
    }
  }
}

// A Q5_K super-block's fifth bits (bit s of qh[l]: element l of unit s) as
// one word per unit at `hi` + 4s, byte c holding those of elements 4j + c at
// bit j.
void repack_q5k_high_bits(const uint8_t* qh, uint8_t* hi) {
  uint64_t e[4];
  for (int k = 0; k < 4; ++k) e[k] = load64(qh + 8 * k);
  for (int s = 0; s < 8; ++s) {
    uint32_t word = 0;
    for (int j = 0; j < 8; ++j) {  // elements 4j..4j+3: bytes 4(j % 2).. of e[j / 2]
      word |= (uint32_t(e[j / 2] >> (32 * (j % 2) + s)) & 0x01010101u) << j;
    }
    std::memcpy(hi + 4 * s, &word, 4);
  }
}

// A Q6_K super-block ([ql 128 B][qh 64 B][16 int8 scales][d f16]: value
// 128h + 32q + l has low bits in ql[64h + 32(q % 2) + l] (low nibble for q <
// 2), high bits at bit 2q of qh[32h + l]) as 8 planar units, unit j = 4h + q
// holding elements 32j..32j+31: 16 bytes of low nibbles in Q4_0's order at
// `lo` + 16j, 8 bytes of high bits at `hi` + 8j (byte c of word w: the bit
// pairs of elements 16w + 4i + c at bit 2i), its scales (2j for elements
// 0-15, 2j + 1 for 16-31: the file's order) at `scales`, and d at `d`.
void repack_q6k_superblock(const uint8_t* block, uint8_t* lo, uint8_t* hi, uint8_t* scales, uint8_t* d) {
  const uint8_t* ql = block;
  const uint8_t* qh = block + 128;
  std::memcpy(scales, block + 192, 16);
  std::memcpy(d, block + 208, 2);
  for (int j = 0; j < 8; ++j) {
    const int h = j / 4, q = j % 4, nibble = q < 2 ? 0 : 4;
    const uint8_t* low = ql + 64 * h + 32 * (q % 2);
    for (int half = 0; half < 2; ++half) {
      const uint64_t a = (load64(low + 8 * half) >> nibble) & kNibbles;
      const uint64_t b = (load64(low + 16 + 8 * half) >> nibble) & kNibbles;
      store64(lo + 16 * j + 8 * half, a | (b << 4));
    }
    // The bit pairs of elements 0-31, a byte each, as 4 words of 8; word w
    // of the output ORs elements 16w + 4i + c (its byte c) at bit 2i.
    uint64_t e[4];
    for (int k = 0; k < 4; ++k) e[k] = (load64(qh + 32 * h + 8 * k) >> (2 * q)) & kPairs;
    for (int w = 0; w < 2; ++w) {
      const uint64_t x = e[2 * w], y = e[2 * w + 1];
      const uint32_t word = uint32_t(x) | uint32_t(x >> 32) << 2 | uint32_t(y) << 4 | uint32_t(y >> 32) << 6;
      std::memcpy(hi + 8 * j + 4 * w, &word, 4);
    }
  }
}

}  // namespace

bool has_planar_layout(uint32_t ggml_type) {
  return ggml_type == 2 || ggml_type == 3 || ggml_type == 8 || ggml_type == kQ4K || ggml_type == kQ5K ||
         ggml_type == kQ6K || ggml_type == kQ4F32Type;
}

uint64_t planar_row_bytes(uint32_t ggml_type, int64_t cols) {
  const uint64_t blocks = uint64_t(cols / 32);
  uint64_t scales = blocks * planar_scale_bytes(ggml_type);
  if (ggml_type == kQ6K) scales += blocks / 8 * 2;  // each super-block's d
  return blocks * planar_quant_bytes(ggml_type) + (scales + 15) / 16 * 16;
}

void repack_planar(uint32_t ggml_type, std::span<const uint8_t> file_bytes, int64_t rows, int64_t cols,
                   std::span<uint8_t> out) {
  const QuantLayout* layout = find_quant_layout(ggml_type);
  if (!has_planar_layout(ggml_type) || layout == nullptr || cols % layout->block_elems != 0 || cols % 32 != 0) {
    throw Error(ErrorCode::NotSupported, "no planar layout for ggml type " + std::to_string(ggml_type) +
                                             " with rows of " + std::to_string(cols));
  }
  const uint64_t blocks = uint64_t(cols / 32), file_row = file_row_bytes(*layout, cols);
  const uint32_t qb = planar_quant_bytes(ggml_type), sb = planar_scale_bytes(ggml_type);
  const uint64_t row_bytes = planar_row_bytes(ggml_type, cols);
  if (file_bytes.size() != uint64_t(rows) * file_row || out.size() != uint64_t(rows) * row_bytes) {
    throw Error(ErrorCode::InvalidProgram, "quantized data has " + std::to_string(file_bytes.size()) +
                                               " bytes, expected " + std::to_string(uint64_t(rows) * file_row));
  }
  std::memset(out.data(), 0, out.size());
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* src = file_bytes.data() + uint64_t(r) * file_row;
    uint8_t* dst = out.data() + uint64_t(r) * row_bytes;
    if (ggml_type == kQ6K) {
      uint8_t* hi = dst + blocks * 16;
      uint8_t* scales = hi + blocks * 8;
      uint8_t* ds = scales + blocks * 2;
      for (uint64_t sb = 0; sb < blocks / 8; ++sb) {
        repack_q6k_superblock(src + sb * layout->file_bytes, dst + sb * 128, hi + sb * 64, scales + sb * 16, ds + sb * 2);
      }
      continue;
    }
    if (ggml_type == kQ4K || ggml_type == kQ5K) {
      const bool five = ggml_type == kQ5K;
      uint8_t* headers = dst + blocks * qb;
      for (uint64_t sb = 0; sb < blocks / 8; ++sb) {
        const uint8_t* block = src + sb * layout->file_bytes;
        repack_q4k_superblock(block, block + (five ? 48 : 16), dst + sb * 128, headers + sb * 16);
        if (five) repack_q5k_high_bits(block + 16, dst + blocks * 16 + sb * 32);
      }
      continue;
    }
    for (uint64_t b = 0; b < blocks; ++b) {
      // File blocks: [scale(s) sb bytes][quants qb bytes].
      const uint8_t* block = src + b * layout->file_bytes;
      std::memcpy(dst + blocks * qb + b * sb, block, sb);
      std::memcpy(dst + b * qb, block + sb, qb);
    }
  }
}

std::vector<uint8_t> repack_planar(uint32_t ggml_type, std::span<const uint8_t> file_bytes, int64_t rows,
                                  int64_t cols) {
  const QuantLayout* layout = find_quant_layout(ggml_type);
  std::vector<uint8_t> out(has_planar_layout(ggml_type) && cols % 32 == 0 && cols % layout->block_elems == 0
                               ? uint64_t(rows) * planar_row_bytes(ggml_type, cols)
                               : 0);
  repack_planar(ggml_type, file_bytes, rows, cols, out);
  return out;
}

gpu::OverrideConstants planar_decode_constants(uint32_t ggml_type, int64_t cols) {
  return {{"QTYPE", kPlanarTypeBase + ggml_type}, {"ROW_UNITS", double(cols / 32)}};
}

}  // namespace wgrt::ops
