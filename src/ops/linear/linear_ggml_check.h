// What the wgrt.linear_ggml family's checks (linear_ggml_check.cpp) and
// its lowering (linear_ggml.cpp) share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "graph/op_registry.h"
#include "ops/linear/linear_forms.h"

namespace wgrt::ops {

// Whether the call has argument `slot` of its form (not the graph's null).
inline bool present(const OpArgs& args, size_t slot) { return slot != kNoArg && !args.is_null(slot); }

// An output's width and its dims with the width replaced by n; RoPE outputs
// [..., heads, head_dim] count heads * head_dim.
std::pair<int64_t, Dims> output_width(const LinearForm& s, size_t slot, const Dims& dims, int64_t n);

// Refuses a call of form `s` whose arguments the kernels cannot take, naming the argument.
void check_linear_ggml(const OpArgs& args, const LinearForm& s);

}  // namespace wgrt::ops
