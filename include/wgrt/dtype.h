// Element types of graph tensors, and how each is stored on the GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace wgrt {

enum class DType : uint8_t { F32, F16, I32, I64, U8, I8, Bool };

std::string_view dtype_name(DType t);

// Bytes per element on the host (numpy's itemsize).
size_t host_size(DType t);

// Bytes per element in a GPU buffer. WGSL has no 64-bit integers, so I64
// tensors live on the GPU as i32 (converted at upload and readback, as
// ExecuTorch's Vulkan backend also does); everything else as on the host.
size_t device_size(DType t);

// IEEE 754 binary16 and bfloat16 elements on the host (f16 tensors' bytes).
float f16_to_f32(uint16_t bits);
float bf16_to_f32(uint16_t bits);
// Rounds to nearest even; beyond the f16 range gives infinity, NaN stays NaN.
uint16_t f32_to_f16(float value);

}  // namespace wgrt
