// One dispatch per run of rows of a weight that may be stored in several
// buffers (a constant above the binding limit, graph/memory_plan.h): the
// lookups (embeddings) bind each run with its own uniform, and their hooks
// write first_row and rows into it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "graph/op_context.h"

namespace wgrt::ops {

struct RowRunDispatch {
  UniformId uniform;
  DispatchId dispatch;
  uint32_t first_row = 0, rows = 0;
};

// `bindings(run, uniform)` gives a dispatch's bindings for one run of the
// weight `w` and its uniform of `uniform_bytes`.
template <typename Bindings>
std::vector<RowRunDispatch> dispatch_row_runs(OpContext& ctx, ValueId w, size_t uniform_bytes,
                                              const gpu::ComputePipeline& pipeline, Bindings&& bindings) {
  std::vector<RowRunDispatch> runs;
  for (const TensorSegment& s : ctx.segments(w)) {
    const UniformId u = ctx.uniform(uniform_bytes);
    const std::vector<gpu::BufferBinding> b = bindings(gpu::BufferBinding{s.buffer}, ctx.uniform_binding(u));
    runs.push_back({u, ctx.dispatch(pipeline, b), static_cast<uint32_t>(s.first_row), static_cast<uint32_t>(s.rows)});
  }
  return runs;
}

}  // namespace wgrt::ops
