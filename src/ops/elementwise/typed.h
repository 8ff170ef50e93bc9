// The mixed-type elementwise path (typed.wgsl) for the arithmetic ops that
// binary.cpp registers: add.Tensor, sub.Tensor, mul.Tensor and div.Tensor
// whose operands are not all f32 (integers: exact i32 math; div is true
// division into f32).
#pragma once

#include <string_view>

#include "graph/op_registry.h"

namespace wgrt::ops {

void check_typed_arith(std::string_view name, const OpArgs& args);
void lower_typed_arith(std::string_view name, OpContext& ctx);

}  // namespace wgrt::ops
