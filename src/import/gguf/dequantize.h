// CPU dequantization of GGUF tensor data to f32, written from the public
// GGUF/ggml block-format description. Exact: each value is computed with the
// same f32 operations, in the same order, as the format defines (no fused
// multiply-add), so results match other conforming readers bit for bit.
// Used by tests and for small tensors; large weights dequantize on the GPU.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wgrt/dtype.h"
#include "import/gguf/ggml_type.h"

namespace wgrt::gguf {

class GgufFile;
struct TensorInfo;

using wgrt::bf16_to_f32;
using wgrt::f16_to_f32;

// Decodes out.size() elements of `type` from `bytes`, which must hold exactly
// that many elements (a whole number of blocks). NotSupported for types
// without a dequantizer (is_supported() is false); InvalidArgument for size
// mismatches.
void dequantize(GgmlType type, std::span<const uint8_t> bytes, std::span<float> out);

// The whole tensor as f32. NotSupported names the tensor and its type.
std::vector<float> dequantize_tensor(const GgufFile& file, const TensorInfo& info);

}  // namespace wgrt::gguf
