// Elementwise binary ops (add, sub, mul, div) with numpy broadcasting.
#pragma once

#include <cstdint>

#include "graph/op_registry.h"

namespace wgrt::ops {

enum class BinaryOp : uint32_t { Add = 0, Sub = 1, Mul = 2, Div = 3, SiluMul = 4 };

// Mirrors `Params` in binary.wgsl.
struct BinaryParams {
  uint32_t count = 0;
  float alpha = 1.0f;
  uint32_t rank = 0;
  uint32_t pad = 0;
  uint32_t out_dims[8] = {};
  uint32_t a_strides[8] = {};
  uint32_t b_strides[8] = {};
};
static_assert(sizeof(BinaryParams) == 112, "must match Params in binary.wgsl");

void register_binary(OpRegistry& registry);

}  // namespace wgrt::ops
