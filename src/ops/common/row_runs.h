// One dispatch per run of rows of a weight that may be stored in several
// buffers (a constant above the binding limit, graph/memory_plan.h): the
// lookups (embeddings) bind each run with its own uniform, and their hooks
// write first_row and rows into it; the f32 and 4-bit linears record a GEMV
// and a GEMM per run (record_linear_runs).
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

// A linear's pair of dispatches for one run of weight rows: its GEMV and its
// GEMM (the op's own, reading `params`, or the family's, reading
// `family_params`); the hook gives workgroups to one of them.
struct LinearRunDispatch {
  UniformId params = 0, family_params = 0;
  DispatchId gemv = 0, gemm = 0;
  uint32_t row0 = 0, rows = 0;
};

// Makes each run's uniforms (`params_bytes` for the op's own kernels, a
// GemmParams one when `family`) and lets `record(run, dispatches)` record its
// GEMV and GEMM with the run's weight binding.
template <typename Record>
std::vector<LinearRunDispatch> record_linear_runs(OpContext& ctx, ValueId w, size_t params_bytes, size_t family_bytes,
                                                  Record&& record) {
  std::vector<LinearRunDispatch> runs;
  for (const TensorSegment& s : ctx.segments(w)) {
    LinearRunDispatch run;
    run.params = ctx.uniform(params_bytes);
    if (family_bytes != 0) run.family_params = ctx.uniform(family_bytes);
    run.row0 = static_cast<uint32_t>(s.first_row);
    run.rows = static_cast<uint32_t>(s.rows);
    record(gpu::BufferBinding{s.buffer}, run);
    runs.push_back(run);
  }
  return runs;
}

}  // namespace wgrt::ops
