#include "ops/quant/quant_layout.h"

#include <cstring>
#include <string>

#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

// F32 and F16 are treated as 32-element "blocks" so every format decodes in
// 32-element units.
constexpr QuantLayout kLayouts[] = {
    {0, 32, 128, 0, 128},   // F32
    {1, 32, 64, 0, 64},     // F16
    {2, 32, 18, 2, 20},     // Q4_0: d, 16 B quants -> [pad 2][d][quants]
    {3, 32, 20, 0, 20},     // Q4_1: d, m, 16 B quants: already aligned
    {6, 32, 22, 2, 24},     // Q5_0: d, qh[4], 16 B quants -> [pad 2][d][qh][quants]
    {7, 32, 24, 0, 24},     // Q5_1: d, m, qh[4], 16 B quants: already aligned
    {8, 32, 34, 2, 36},     // Q8_0: d, 32 B quants -> [pad 2][d][quants]
    {10, 256, 84, 0, 84},   // Q2_K: scales, qs, d, dmin: already aligned
    {11, 256, 110, 0, 112}, // Q3_K: [hmask][qs][scales][d] -> padded at the end
    {12, 256, 144, 0, 144}, // Q4_K: already aligned
    {13, 256, 176, 0, 176}, // Q5_K: already aligned
    {14, 256, 210, 0, 212}, // Q6_K: [ql][qh][scales][d] -> padded at the end
    {20, 32, 18, 2, 20},    // IQ4_NL: d, 16 B quants -> [pad 2][d][quants]
    {23, 256, 136, 0, 136}, // IQ4_XS: d, scales_h, scales_l, qs: already aligned
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

std::vector<uint8_t> repack_for_gpu(const QuantLayout& layout, std::span<const uint8_t> file_bytes, int64_t rows,
                                    int64_t cols) {
  if (cols % layout.block_elems != 0 || cols % 32 != 0) {
    throw Error(ErrorCode::NotSupported, "rows of " + std::to_string(cols) + " elements are not whole blocks of " +
                                             std::to_string(layout.block_elems));
  }
  const uint64_t blocks = uint64_t(rows) * uint64_t(cols / layout.block_elems);
  if (file_bytes.size() != blocks * layout.file_bytes) {
    throw Error(ErrorCode::InvalidProgram, "quantized data has " + std::to_string(file_bytes.size()) +
                                               " bytes, expected " + std::to_string(blocks * layout.file_bytes));
  }
  if (layout.file_bytes == layout.gpu_bytes) return {file_bytes.begin(), file_bytes.end()};
  std::vector<uint8_t> out(blocks * layout.gpu_bytes, 0);
  for (uint64_t b = 0; b < blocks; ++b) {
    std::memcpy(out.data() + b * layout.gpu_bytes + layout.front_pad, file_bytes.data() + b * layout.file_bytes,
                layout.file_bytes);
  }
  return out;
}

}  // namespace wgrt::ops
