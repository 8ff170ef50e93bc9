// Rewrites of what exporters write into the ops the fusion passes know, run
// before them (ops/register_ops.cpp). Each keeps the program's results and
// memory plan; where a precondition fails the ops stay as they are.
//
//   op(inputs) -> a; ... op(the same inputs) -> b, for ops that compute from
//   their inputs alone (choose_qparams_affine: 8da4w's per-linear repeats)
//     => b's readers read a
//   view_copy(x) -> y or clone(x) -> y with y's shape x's own (an identity
//   reshape, a copy), x an intermediate written before
//     => y's readers read x
//   prepack(c) -> y of a constant c (a plain copy in wgrt's buffers)
//     => y's readers read c
//   sigmoid(g) -> s; mul(g, s) -> h; mul(h, u) -> y   (or silu(g) -> h; mul(h, u) -> y;
//   or et_vk.swiglu(g, u) -> y), either operand order
//     => wgrt.swiglu(g, u) -> y
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgrt::passes {

struct CanonicalStats {
  size_t repeats = 0, identity_copies = 0, prepacks = 0, swiglus = 0;
  size_t total() const { return repeats + identity_copies + prepacks + swiglus; }
};

CanonicalStats canonicalize(Graph& graph);

}  // namespace wgrt::passes
