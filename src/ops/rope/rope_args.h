// Argument checks shared by the RoPE ops (et_vk.apply_rotary_emb and its
// hf/interleaved variants): they take the same four operands.
#pragma once

#include "graph/op_registry.h"

namespace wgrt::ops {

// xq, xk: f32 of rank 4 (arguments 0, 1); freqs cos, sin: f32 of rank 2 (2, 3).
void check_rope_operands(const OpArgs& args);

}  // namespace wgrt::ops
