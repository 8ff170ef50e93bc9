// wgrt.embedding_ggml (weight u8 [vocab, row bytes] in a ggml block format,
// ggml type id, ids [...] i32/i64, out [..., dim]): token embeddings of GGUF
// models looked up in the stored format.
#include <vector>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/row_runs.h"
#include "ops/quant/weight_prep.h"
#include "ops/embedding/host_indices.h"
#include "ops/register_ops.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;

struct EmbeddingParams {
  uint32_t tokens = 0, dim = 0, row_words = 0, vocab = 0;
  uint32_t first_row = 0, rows = 0, pad0 = 0, pad1 = 0;
};
static_assert(sizeof(EmbeddingParams) == 32, "must match Params in embedding.wgsl");

void check(const OpArgs& args) {
  args.expect_count(4);
  const Tensor& w = args.tensor(0, {DType::U8});
  if (!is_planar_weight(w)) args.expect_rank(0, 2);
  expect_table_rows(args, 0);
  const int64_t type = args.integer(1);
  const QuantLayout* layout = find_quant_layout(static_cast<uint32_t>(type));
  if (layout == nullptr) args.unsupported(1, "ggml type " + std::to_string(type) + " has no GPU kernel");
  const Tensor& ids = args.tensor(2, {DType::I32, DType::I64});
  const Tensor& out = args.tensor(3, {DType::F32});
  args.expect_rank(3, ids.max_dims.size() + 1);
  const int64_t dim = out.max_dims.back();
  if (!ggml_rows_fit(*layout, w, dim) || dim % 32 != 0) {
    args.fail(0, "rows of " + std::to_string(weight_row_words(w) * 4) + " bytes do not hold " + std::to_string(dim) +
                     " elements of ggml type " + std::to_string(type));
  }
  Dims want = ids.max_dims;
  want.push_back(dim);
  if (out.max_dims != want) args.fail(3, "expected shape " + dims_string(want) + ", got " + dims_string(out.max_dims));
}

void prepare(ConstantPrep& prep) {
  prepare_ggml_weight(prep, 0, 1, prep.args().tensor(3).max_dims.back());
}

void lower(OpContext& ctx) {
  const ValueId w = ctx.arg(0), ids = ctx.arg(2), out = ctx.arg(3);
  const QuantLayout& layout = *find_quant_layout(static_cast<uint32_t>(ctx.args().integer(1)));
  const uint32_t vocab = static_cast<uint32_t>(ctx.max_dims(w)[0]);
  const Tensor& wt = ctx.args().tensor(0);
  const uint32_t row_words = weight_row_words(wt);
  const uint32_t dim = static_cast<uint32_t>(ctx.max_dims(out).back());
  gpu::OverrideConstants constants = weight_decode_constants(layout, wt, dim);
  constants.emplace_back("WG", kWorkgroup);
  const auto& p = ctx.pipeline("embedding/embedding_ggml.wgsl", "main", constants);
  // One dispatch per run of rows of a table above the binding limit.
  const std::vector<RowRunDispatch> runs =
      dispatch_row_runs(ctx, w, sizeof(EmbeddingParams), p, [&](gpu::BufferBinding run, gpu::BufferBinding u) {
        return std::vector<gpu::BufferBinding>{ctx.tensor(ids), run, ctx.tensor(out), u};
      });
  ctx.on_resize({ids}, [=](ResizeContext& r) {
    Dims dims = r.dims(ids);
    const uint32_t tokens = static_cast<uint32_t>(numel(dims));
    dims.push_back(dim);
    r.set_dims(out, dims);
    for (const RowRunDispatch& run : runs) {
      r.write_uniform(run.uniform, EmbeddingParams{tokens, dim, row_words, vocab, run.first_row, run.rows});
      r.set_workgroups(run.dispatch, r.fold(tokens));
    }
  });
}

}  // namespace

void register_embedding_ggml(OpRegistry& registry) {
  registry.add("wgrt.embedding_ggml", {check, lower, false, prepare, "f32 (GGML-quantized table, i32/i64 indices)"});
}

}  // namespace wgrt::ops
