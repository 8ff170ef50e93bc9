// The check of an operand an op reads as f32, or as packed f16 where an fp16
// program keeps the constant f16 (OpDef::f16_constant_args,
// ops/passes/widen_f16.h): only a constant may be f16 there.
#pragma once

#include <cstddef>

#include "graph/op_registry.h"

namespace wgrt::ops {

inline const Tensor& f32_or_f16_constant(const OpArgs& args, size_t i) {
  const Tensor& t = args.tensor(i, {DType::F32, DType::F16});
  if (t.dtype == DType::F16 && t.storage != StorageKind::Constant) args.fail(i, "an f16 operand must be a constant");
  return t;
}

}  // namespace wgrt::ops
