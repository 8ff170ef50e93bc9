// et_vk.embedding_q4gsw.default (weight, scales, group_size, indices,
// is_linear_weight, out): weight u8 [vocab, D/2], scales f32
// [vocab, D / group_size], indices i64 or i32 of any shape, out
// [indices..., D]. The hook follows the live indices shape.
#include <vector>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/row_runs.h"
#include "ops/embedding/host_indices.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;

struct EmbeddingParams {
  uint32_t words = 0;
  uint32_t row_words = 0;
  uint32_t group_size = 0;
  uint32_t groups_per_row = 0;
  uint32_t vocab = 0;
  uint32_t first_row = 0, rows = 0, pad = 0;
};
static_assert(sizeof(EmbeddingParams) == 32, "must match Params in embedding_q4gsw.wgsl");

void check(const OpArgs& args) {
  args.expect_count(6);
  const Tensor& w = args.tensor(0, {DType::U8});
  args.expect_rank(0, 2);
  expect_table_rows(args, 0);
  const Tensor& s = args.tensor(1, {DType::F32});
  args.expect_rank(1, 2);
  const int64_t d = w.max_dims[1] * 2, gs = args.integer(2);
  if (d % 8 != 0) args.fail(0, "row of " + std::to_string(d) + " values is not a multiple of 8");
  if (gs <= 0 || gs % 8 != 0 || d % gs != 0) {
    args.fail(2, "group size " + std::to_string(gs) + " must be a positive multiple of 8 dividing " + std::to_string(d));
  }
  if (s.max_dims != Dims{w.max_dims[0], d / gs}) {
    args.fail(1, "expected [" + std::to_string(w.max_dims[0]) + ", " + std::to_string(d / gs) + "], got " +
                     dims_string(s.max_dims));
  }
  const Tensor& idx = args.tensor(3, {DType::I64, DType::I32});
  args.boolean(4);
  Dims want = idx.max_dims;
  want.push_back(d);
  args.tensor(5, {DType::F32});
  if (args.tensor(5).max_dims != want) {
    args.fail(5, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(5).max_dims));
  }
}

void lower(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId w = ctx.arg(0), scales = ctx.arg(1), idx = ctx.arg(3), out = ctx.arg(5);
  const auto& pipeline = ctx.pipeline("embedding/embedding_q4gsw.wgsl", "main",
                                      {{"WG", kWorkgroup}, {"LOW_FIRST", args.boolean(4) ? 1.0 : 0.0}});
  // A weight above the binding limit comes in runs of rows, one dispatch
  // each; a run writes the tokens whose row it holds.
  const std::vector<RowRunDispatch> runs =
      dispatch_row_runs(ctx, w, sizeof(EmbeddingParams), pipeline, [&](gpu::BufferBinding run, gpu::BufferBinding u) {
        return std::vector<gpu::BufferBinding>{run, ctx.tensor(scales), ctx.tensor(idx), ctx.tensor(out), u};
      });
  EmbeddingParams base;
  const int64_t dim = ctx.max_dims(w)[1] * 2;
  base.row_words = static_cast<uint32_t>(dim / 8);
  base.group_size = static_cast<uint32_t>(args.integer(2));
  base.groups_per_row = static_cast<uint32_t>(ctx.max_dims(scales)[1]);
  base.vocab = static_cast<uint32_t>(ctx.max_dims(w)[0]);
  const int64_t vocab = ctx.max_dims(w)[0];
  const DType idx_dtype = ctx.tensor_info(idx).dtype;
  watch_host_indices(ctx, idx);
  ctx.on_resize({idx}, [=](ResizeContext& r) {
    check_host_indices(r, idx, idx_dtype, vocab, "et_vk.embedding_q4gsw");
    Dims dims = r.dims(idx);
    EmbeddingParams p = base;
    p.words = static_cast<uint32_t>(numel(dims) * p.row_words);
    dims.push_back(dim);
    r.set_dims(out, dims);
    for (const RowRunDispatch& run : runs) {
      p.first_row = run.first_row;
      p.rows = run.rows;
      r.write_uniform(run.uniform, p);
      r.set_workgroups(run.dispatch, r.fold(gpu::div_up(p.words, kWorkgroup)));
    }
  });
}

}  // namespace

void register_embedding_q4gsw(OpRegistry& registry) { registry.add("et_vk.embedding_q4gsw.default", {check, lower, false, nullptr, "u8 4-bit weights, f32 scales (indices i32, i64)"}); }

}  // namespace wgrt::ops
