// How ggml block formats sit in GPU buffers. Blocks keep their bytes; each is
// padded to whole 32-bit words so WGSL can read it as u32s, with the padding
// placed where it keeps the quants word-aligned (dequant.wgsl reads them so).
// Lossless: no value is re-quantized.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gpu/pipeline_cache.h"

namespace wgrt::ops {

struct QuantLayout {
  uint32_t ggml_type = 0;
  uint32_t block_elems = 0;   // elements per block
  uint32_t file_bytes = 0;    // bytes per block as stored in GGUF
  uint32_t front_pad = 0;     // zero bytes put before each block
  uint32_t gpu_bytes = 0;     // bytes per block on the GPU (a multiple of 4)
  const char* name = "";      // ggml's name of the type ("Q4_0")
};

// wgrt's own block type (no GGUF file has it): Q4_0's 32 nibbles (q - 8)
// with an f32 scale, [d f32][16 B quants], 20 bytes. ExecuTorch's 4-bit
// groupwise weights (et_vk.linear_q4gsw: f32 scales per group of 32 or a
// multiple) become it losslessly, so that they run in the GGUF kernels.
inline constexpr uint32_t kQ4F32Type = 100;

// The layout for a ggml type id, or nullptr when the GPU kernels lack it.
// Supported: F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K,
// Q6_K, IQ4_NL, IQ4_XS, and Q4_0F32 above.
const QuantLayout* find_quant_layout(uint32_t ggml_type);

// The override constants dequant.wgsl reads (QTYPE, BLOCK_WORDS, BLOCK_UNITS).
gpu::OverrideConstants decode_constants(const QuantLayout& layout);

// Bytes per row of `cols` elements on the GPU; cols must be a whole number
// of blocks (and of 32-element units).
uint64_t gpu_row_bytes(const QuantLayout& layout, int64_t cols);

// Bytes per row of `cols` elements as GGUF stores them.
uint64_t file_row_bytes(const QuantLayout& layout, int64_t cols);

// Rewrites `rows` rows of file-layout blocks into the GPU layout.
std::vector<uint8_t> repack_for_gpu(const QuantLayout& layout, std::span<const uint8_t> file_bytes, int64_t rows,
                                    int64_t cols);
// Into `out` (exactly the repacked size), as a weight streams to the GPU.
void repack_for_gpu(const QuantLayout& layout, std::span<const uint8_t> file_bytes, int64_t rows, int64_t cols,
                    std::span<uint8_t> out);

// wgrt's planar layout for the decode GEMV (gemv_planar.wgsl): Q4_0, Q4_1, Q8_0,
// Q4_K, Q5_K, Q6_K and Q4_0F32 rows re-laid out as [quants of every 32-element
// unit, 16 or 32 bytes each; Q5_K and Q6_K: 16 bytes of low nibbles each, then
// 4 or 8 of high bits each] [scales: f16 d per block (Q4_0, Q8_0), f16 d, m
// (Q4_1), f32 d (Q4_0F32), per Q4_K and Q5_K super-block its 16-byte header
// (d, dmin, the 6-bit scales and mins of its 8 units), per Q6_K super-block
// its 16 int8 scales, then every super-block's f16 d], the scale
// part padded to 16 bytes, so that a thread reads a block's quants as whole
// vec4<u32> words and neighbouring threads read neighbouring 16 bytes. The
// K-quants' nibbles are reordered to Q4_0's (byte b: elements b and b + 16 of
// a unit), so one kernel reads them all. Same
// bytes as the file but for that padding (at most 15 per row: 1.00x for K a
// multiple of 256, 1.04x for SmolLM2's K = 576). On the GPU such a weight has
// dims [rows, row bytes / 16, 16] (rank 3 tells it from the block layout).
// Shaders decode it with QTYPE = kPlanarTypeBase + the ggml type.
inline constexpr uint32_t kPlanarTypeBase = 1000;

// Whether the planar layout exists for a ggml type.
bool has_planar_layout(uint32_t ggml_type);

// Bytes per row of `cols` elements in the planar layout (a multiple of 16).
uint64_t planar_row_bytes(uint32_t ggml_type, int64_t cols);

// Rewrites `rows` rows of file-layout blocks into the planar layout.
std::vector<uint8_t> repack_planar(uint32_t ggml_type, std::span<const uint8_t> file_bytes, int64_t rows,
                                  int64_t cols);
void repack_planar(uint32_t ggml_type, std::span<const uint8_t> file_bytes, int64_t rows, int64_t cols,
                   std::span<uint8_t> out);

// The override constants dequant.wgsl reads for a planar-layout weight with
// rows of `cols` elements (QTYPE, ROW_UNITS).
gpu::OverrideConstants planar_decode_constants(uint32_t ggml_type, int64_t cols);

}  // namespace wgrt::ops
