// f16 programs (ExecuTorch exports with `model.half()` or `-d fp16`) run
// with f32 inside: every f16 tensor that is not a graph input or output
// becomes f32 (f16 constants are widened on the host, once, at import), and
// each f16 input or output keeps its f16 buffer, converted at the graph's
// edges by a `wgrt.convert_dtype` op (the first ops read the inputs into f32
// twins, the last ops narrow the results). Callers pass and receive f16; the
// kernels compute as the f32 graph would, so results are at least as
// accurate as eager fp16. What it costs: intermediates and constants take
// f32 memory (twice what fp16 promises).
#pragma once

#include <cstddef>

#include "graph/graph.h"

namespace wgrt {

struct WidenStats {
  size_t tensors = 0;    // f16 tensors made f32 (constants included)
  size_t constants = 0;  // of them constants, widened on the host
  size_t converts = 0;   // convert_dtype ops added at the edges
};

WidenStats widen_f16(Graph& graph);

}  // namespace wgrt
