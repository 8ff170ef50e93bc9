// Fusion passes over the graph IR, registered with the op families they
// produce (ops/register_ops.cpp: OpRegistry::add_pass) and run by
// ExecutableGraph::load before memory planning unless Tuning::fuse is off;
// graph/ runs them without naming an operator. They turn the
// op patterns of a transformer layer into fewer dispatches, for GGUF graphs
// and any other graph built from the same ops.
//
//   rms_norm(x, g, eps) -> n;  linear_ggml(n, W...) for every consumer of n
//     => linear_ggml_fused(x, W..., norm g, eps)   (the norm runs in the GEMV)
//   rms_norm(x) -> n; select_copy(n, dim, -1) or slice_copy(n, dim, ...) -> s; linear_ggml(s, W...)
//     => select_copy(x) -> s'; linear_ggml_fused(s', W..., norm g, eps)
//   linears reading the same x with the same norm (Q, K, V; gate, up)
//     => linear_ggml_split(x, stacked weights...) -> their outputs (up to 3)
//   linear_ggml_split(x, [gate; up]...) -> g, u; swiglu(g, u) -> h
//     => linear_ggml_swiglu(x, gate/up rows interleaved...) -> h
//   linear_ggml_split(x, [Q; K; V]...) -> q, k, v; view(q) -> q4; view(k) -> k4;
//   apply_rotary_emb(q4, k4, cos, sin) -> [qr, kr]
//     => linear_ggml_split_rope(x, ..., cos, sin) -> qr, kr, v
//   linear_ggml[_fused](...) -> y; add(y, r) or add(r, y) with alpha 1 -> z
//     => linear_ggml_fused(..., residual r) -> z
//   aten.convolution(...) -> y; add(y, r) -> z [; relu(z) or hardtanh(z) -> a]
//     => wgrt.conv2d_fused(..., min, max, residual r) -> z [or a]
//
// Each rewrite checks its preconditions (shapes, f32, a norm weight of K
// elements, the intermediate used only there and not a graph output, no
// shared ExecuTorch memory object written in between); where one fails the
// ops stay as they are.
#pragma once

#include <cstddef>
#include <cstdint>

#include "graph/graph.h"
#include "graph/op_registry.h"

namespace wgrt {

struct FusionStats {
  size_t norms = 0;      // rms_norm ops folded into their consumer GEMVs
  size_t merged = 0;     // groups of linears stacked into one matrix
  size_t swiglus = 0;    // swiglu ops folded into their gate/up GEMV
  size_t ropes = 0;      // RoPE ops (and the views before them) folded into the Q/K/V GEMV
  size_t residuals = 0;  // adds folded into the producing GEMV
  size_t conv_residuals = 0;  // adds (and a following relu / hardtanh) folded into the producing convolution
  size_t ops_before = 0, ops_after = 0;
};

// What the device allows the fused ops: no stacked weight grows past its
// split size (gpu::Device::split_bytes), and the Q/K/V GEMV with
// RoPE (10 storage buffers) is made only where a stage may bind that many.
using FusionLimits = PassLimits;

FusionStats fuse_linear_layers(Graph& graph, const FusionLimits& limits = {});

}  // namespace wgrt
