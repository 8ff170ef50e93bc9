// IEEE 754 binary16 and bfloat16 on the host: GGUF's f16/bf16 weights, f16
// program constants widened at import, f16 inputs made up by `wgrt run`.
#pragma once

#include <cstdint>

namespace wgrt {

float f16_to_f32(uint16_t bits);
float bf16_to_f32(uint16_t bits);
// Round to nearest even; overflow gives infinity, NaN stays NaN.
uint16_t f32_to_f16(float value);

}  // namespace wgrt
