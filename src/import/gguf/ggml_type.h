// ggml tensor element types as GGUF stores them: the numeric id, a name, and
// the block geometry (elements per block, bytes per block) that sizes a
// tensor's data. Every type ggml defines is listed so that any file opens;
// only some of them can be dequantized (dequantize.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace wgrt::gguf {

enum class GgmlType : uint32_t {
  F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
  Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15,
  IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21,
  IQ2_S = 22, IQ4_XS = 23, I8 = 24, I16 = 25, I32 = 26, I64 = 27, F64 = 28,
  IQ1_M = 29, BF16 = 30, TQ1_0 = 34, TQ2_0 = 35, MXFP4 = 39,
};

struct GgmlTypeInfo {
  GgmlType type;
  std::string_view name;
  uint32_t block_size;   // elements per block
  uint32_t block_bytes;  // bytes per block
};

// The info for a raw type id, or nullptr when ggml defines no such type.
const GgmlTypeInfo* find_ggml_type(uint32_t id);
// The info for a known type (never null).
const GgmlTypeInfo& ggml_type_info(GgmlType type);
std::string_view to_string(GgmlType type);
// "Q4_K (12)", for messages.
std::string describe(GgmlType type);

// Whether wgrt understands the type's contents (dequantize.h, and later the
// GPU kernels): F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K,
// Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS.
bool is_supported(GgmlType type);
// Those types' names, comma-separated, for messages.
std::string supported_type_names();

}  // namespace wgrt::gguf
