// The argument lists of the wgrt.linear_ggml family, described once: the ops
// check and lower by it (linear_ggml.cpp) and the fusion passes that make
// them build and read lists by it (ops/passes/fuse_linear.cpp).
//   wgrt.linear_ggml             x, w, type, bias, x_quant, out
//   wgrt.linear_ggml_fused       x, w, type, bias, x_quant, norm, eps, residual, out
//   wgrt.linear_ggml_split       x, w, type, bias, x_quant, norm, eps, out, out1, out2
//   wgrt.linear_ggml_swiglu      x, w, type, bias, x_quant, norm, eps, out
//   wgrt.linear_ggml_split_rope  x, w, type, bias, x_quant, norm, eps, cos, sin, out, out1, out2
// An argument a form has but a call does not use is the graph's null.
// x_quant: null, or the eps of x's per-row int8 requantization (ExecuTorch's
// 8da4w linears; linear/x_dq8.wgsl), which follows the norm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "graph/value.h"

namespace wgrt::ops {

inline constexpr size_t kNoArg = SIZE_MAX;  // the form has no such argument
inline constexpr size_t kLinearX = 0, kLinearW = 1, kLinearType = 2, kLinearBias = 3, kLinearXQuant = 4;

struct LinearForm {
  std::string_view name;
  size_t norm, eps, residual, out, out1, out2;
  bool swiglu = false;                  // out is silu(gate) * up of interleaved rows, N / 2 wide
  size_t cos = kNoArg, sin = kNoArg;    // RoPE tables: out and out1 are [..., heads, head_dim]
  size_t bias = kLinearBias;

  size_t arg_count() const { return out2 != kNoArg ? out2 + 1 : out + 1; }
};

inline constexpr LinearForm kLinearPlain{"wgrt.linear_ggml", kNoArg, kNoArg, kNoArg, 5, kNoArg, kNoArg};
inline constexpr LinearForm kLinearFused{"wgrt.linear_ggml_fused", 5, 6, 7, 8, kNoArg, kNoArg};
inline constexpr LinearForm kLinearSplit{"wgrt.linear_ggml_split", 5, 6, kNoArg, 7, 8, 9};
inline constexpr LinearForm kLinearSwiglu{"wgrt.linear_ggml_swiglu", 5, 6, kNoArg, 7, kNoArg, kNoArg, true};
inline constexpr LinearForm kLinearSplitRope{"wgrt.linear_ggml_split_rope", 5, 6, kNoArg, 9, 10, 11, false, 7, 8};
inline constexpr const LinearForm* kLinearForms[] = {&kLinearPlain, &kLinearFused, &kLinearSplit, &kLinearSwiglu,
                                                      &kLinearSplitRope};

// Every argument a call of the family can have, by name.
struct LinearArgs {
  ValueId x, w, type, bias, x_quant, norm, eps, residual, cos, sin, out, out1, out2;
};

// The form named `op`, or null.
inline const LinearForm* find_linear_form(std::string_view op) {
  for (const LinearForm* f : kLinearForms) {
    if (f->name == op) return f;
  }
  return nullptr;
}

// A call's arguments by name; those its form lacks are `null`.
inline LinearArgs linear_args(const LinearForm& f, const std::vector<ValueId>& args, ValueId null) {
  const auto at = [&](size_t i) { return i != kNoArg && i < args.size() ? args[i] : null; };
  return {args[kLinearX], args[kLinearW], args[kLinearType], at(f.bias), at(kLinearXQuant), at(f.norm), at(f.eps),
          at(f.residual),  at(f.cos),      at(f.sin),         at(f.out),  at(f.out1),       at(f.out2)};
}

// The argument list of form `f` (what it lacks of `a` is dropped).
inline std::vector<ValueId> linear_arg_list(const LinearForm& f, const LinearArgs& a) {
  std::vector<ValueId> list(f.arg_count());
  list[kLinearX] = a.x;
  list[kLinearW] = a.w;
  list[kLinearType] = a.type;
  list[kLinearXQuant] = a.x_quant;
  const std::pair<size_t, ValueId> slots[] = {{f.bias, a.bias}, {f.norm, a.norm}, {f.eps, a.eps},
                                              {f.residual, a.residual}, {f.cos, a.cos}, {f.sin, a.sin},
                                              {f.out, a.out}, {f.out1, a.out1}, {f.out2, a.out2}};
  for (const auto& [i, v] : slots) {
    if (i != kNoArg) list[i] = v;
  }
  return list;
}

}  // namespace wgrt::ops
