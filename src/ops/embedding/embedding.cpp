// aten.embedding.default (weight, indices, padding_idx, scale_grad_by_freq,
// sparse, out): weight f32 [vocab, D], indices i64 or i32 of any shape, out
// [indices..., D]. padding_idx and the two flags only matter for gradients.
// The hook follows the live indices shape.
#include <vector>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/f16_constant.h"
#include "ops/common/row_runs.h"
#include "ops/embedding/host_indices.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;

struct EmbeddingParams {
  uint32_t count = 0;
  uint32_t d = 0;
  uint32_t vocab = 0;
  uint32_t first_row = 0, rows = 0, pad[3] = {};
};
static_assert(sizeof(EmbeddingParams) == 32, "must match Params in embedding.wgsl");

void check(const OpArgs& args) {
  args.expect_count(6);
  const Tensor& w = f32_or_f16_constant(args, 0);
  args.expect_rank(0, 2);
  expect_table_rows(args, 0);
  const Tensor& idx = args.tensor(1, {DType::I64, DType::I32});
  args.integer(2);
  args.boolean(3);
  args.boolean(4);
  Dims want = idx.max_dims;
  want.push_back(w.max_dims[1]);
  args.tensor(5, {DType::F32});
  if (args.tensor(5).max_dims != want) {
    args.fail(5, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(5).max_dims));
  }
}

void lower(OpContext& ctx) {
  const ValueId w = ctx.arg(0), idx = ctx.arg(1), out = ctx.arg(5);
  const auto& pipeline = ctx.pipeline("embedding/embedding.wgsl", "main",
                                      {{"WG", kWorkgroup}, {"W_F16", ctx.tensor_info(w).dtype == DType::F16 ? 1 : 0}});
  // A table above the binding limit comes in runs of rows, one dispatch
  // each; a run writes the tokens whose row it holds.
  const std::vector<RowRunDispatch> runs =
      dispatch_row_runs(ctx, w, sizeof(EmbeddingParams), pipeline, [&](gpu::BufferBinding run, gpu::BufferBinding u) {
        return std::vector<gpu::BufferBinding>{run, ctx.tensor(idx), ctx.tensor(out), u};
      });
  const int64_t dim = ctx.max_dims(w)[1], vocab = ctx.max_dims(w)[0];
  const DType idx_dtype = ctx.tensor_info(idx).dtype;
  watch_host_indices(ctx, idx);
  ctx.on_resize({idx}, [=](ResizeContext& r) {
    check_host_indices(r, idx, idx_dtype, vocab, "aten.embedding");
    Dims dims = r.dims(idx);
    EmbeddingParams p;
    p.count = static_cast<uint32_t>(numel(dims) * dim);
    p.d = static_cast<uint32_t>(dim);
    p.vocab = static_cast<uint32_t>(vocab);
    dims.push_back(dim);
    r.set_dims(out, dims);
    for (const RowRunDispatch& run : runs) {
      p.first_row = run.first_row;
      p.rows = run.rows;
      r.write_uniform(run.uniform, p);
      r.set_workgroups(run.dispatch, r.fold(gpu::div_up(p.count, kWorkgroup)));
    }
  });
}

}  // namespace

void register_embedding_f32(OpRegistry& registry) {
  OpDef def{check, lower, false, nullptr, "f32 (indices i32, i64)"};
  def.f16_constant_args = {0};  // the table: f16 programs keep it f16
  registry.add("aten.embedding.default", std::move(def));
}

}  // namespace wgrt::ops
