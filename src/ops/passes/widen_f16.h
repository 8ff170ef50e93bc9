// f16 programs (ExecuTorch exports with `model.half()` or `-d fp16`) run
// with f32 inside: every f16 tensor that is not a graph input or output
// becomes f32 (f16 constants are widened on the host, once, at import), and
// each f16 input or output keeps its f16 buffer, converted at the graph's
// edges by a `wgrt.convert_dtype` op (the first ops read the inputs into f32
// twins, the last ops narrow the results). Callers pass and receive f16; the
// kernels compute as the f32 graph would, so results are at least as
// accurate as eager fp16. A constant stays f16 where every op naming it
// reads that argument in f16 (`reads_f16`: OpDef::f16_constant_args, e.g.
// aten.linear's weight): half its memory. Intermediates and the other
// constants take f32 memory.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "graph/graph.h"
#include "graph/op_registry.h"

namespace wgrt {

struct WidenStats {
  size_t tensors = 0;    // f16 tensors made f32 (constants included)
  size_t constants = 0;  // of them constants, widened on the host
  size_t converts = 0;   // convert_dtype ops added at the edges
  size_t kept = 0;       // f16 constants kept f16 (their readers read f16)
};

// (op name, argument index) -> whether the op reads that constant in f16.
using ReadsF16 = std::function<bool(std::string_view, size_t)>;
WidenStats widen_f16(Graph& graph, const ReadsF16& reads_f16 = {});
// The same with the registry's OpDef::f16_constant_args: what loading a
// program does before its ops are checked.
WidenStats widen_f16(Graph& graph, const OpRegistry& registry);

}  // namespace wgrt
