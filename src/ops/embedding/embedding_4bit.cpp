// quantized_decomposed.embedding_4bit.dtype (weight, scales, zero_points or
// None, quant_min, quant_max, indices, dtype, out): weight u8 [vocab, D/2]
// (two 4-bit codes a byte, d even in the high nibble, +8), scales f32 [vocab]
// or [vocab, D / group_size], quant range [-8, 7] (the only one ExecuTorch's
// reference accepts), indices i64 or i32 of any shape, out f32
// [indices..., D]. VulkanPartitioner rewrites it into et_vk.embedding_q4gsw
// when D % 32 == 0; this op is what remains otherwise. Zero points are
// refused: VulkanPartitioner 1.5.1 cannot export them (its quantized_embedding
// pattern fails on a zero-point tensor), so no graph wgrt could test has them.
// The hook follows the live indices shape.
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/qparams.h"
#include "ops/embedding/host_indices.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;

struct Embedding4Params {
  uint32_t count = 0;
  uint32_t d = 0;
  uint32_t group_size = 0;
  uint32_t groups_per_row = 0;
  uint32_t vocab = 0;
  uint32_t pad[3] = {};
};
static_assert(sizeof(Embedding4Params) == 32, "must match Params in embedding_4bit.wgsl");

// Scale / zero-point groups per row: 1 for [vocab], G for [vocab, G].
int64_t groups_per_row(const Dims& scale_dims) { return scale_dims.size() == 2 ? scale_dims[1] : 1; }

void check(const OpArgs& args) {
  args.expect_count(8);
  const Tensor& w = args.tensor(0, {DType::U8});
  args.expect_rank(0, 2);
  expect_table_rows(args, 0);
  const Tensor& s = args.tensor(1, {DType::F32});
  const int64_t vocab = w.max_dims[0], d = w.max_dims[1] * 2;
  if (s.max_dims.empty() || s.max_dims.size() > 2 || s.max_dims[0] != vocab) {
    args.fail(1, "expected scales [" + std::to_string(vocab) + "] or [" + std::to_string(vocab) + ", groups], got " +
                     dims_string(s.max_dims));
  }
  const int64_t groups = groups_per_row(s.max_dims);
  if (groups < 1 || d % groups != 0 || d / groups < 2) {
    args.fail(1, std::to_string(groups) + " groups per row do not split a row of " + std::to_string(d) +
                     " values into groups of at least 2");
  }
  if (args.integer(3) != -8 || args.integer(4) != 7) {
    args.fail(args.integer(3) != -8 ? 3 : 4, "quant range [" + std::to_string(args.integer(3)) + ", " +
                                                 std::to_string(args.integer(4)) + "] must be [-8, 7] for 4-bit codes");
  }
  check_scale_tensor(args, 1, numel(s.max_dims));
  if (!args.is_null(2)) args.unsupported(2, "zero points (only the symmetric [-8, 7] codes VulkanPartitioner exports)");
  const Tensor& idx = args.tensor(5, {DType::I64, DType::I32});
  if (!args.is_null(6)) args.unsupported(6, "an explicit output dtype (f32 only)");
  Dims want = idx.max_dims;
  want.push_back(d);
  args.tensor(7, {DType::F32});
  if (args.tensor(7).max_dims != want) {
    args.fail(7, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(7).max_dims));
  }
}

void lower(OpContext& ctx) {
  const ValueId w = ctx.arg(0), scales = ctx.arg(1), idx = ctx.arg(5), out = ctx.arg(7);
  const auto& pipeline = ctx.pipeline("embedding/embedding_4bit.wgsl", "main", {{"WG", kWorkgroup}});
  const UniformId u = ctx.uniform(sizeof(Embedding4Params));
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(w), ctx.tensor(scales), ctx.tensor(idx),
                                               ctx.tensor(out), ctx.uniform_binding(u)});
  Embedding4Params base;
  const int64_t dim = ctx.max_dims(w)[1] * 2, vocab = ctx.max_dims(w)[0];
  base.d = static_cast<uint32_t>(dim);
  base.groups_per_row = static_cast<uint32_t>(groups_per_row(ctx.max_dims(scales)));
  base.group_size = static_cast<uint32_t>(dim / base.groups_per_row);
  base.vocab = static_cast<uint32_t>(vocab);
  const DType idx_dtype = ctx.tensor_info(idx).dtype;
  watch_host_indices(ctx, idx);
  ctx.on_resize({idx}, [=](ResizeContext& r) {
    check_host_indices(r, idx, idx_dtype, vocab, "quantized_decomposed.embedding_4bit");
    Dims dims = r.dims(idx);
    Embedding4Params p = base;
    p.count = static_cast<uint32_t>(numel(dims) * dim);
    dims.push_back(dim);
    r.set_dims(out, dims);
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.count, kWorkgroup)));
  });
}

}  // namespace

void register_embedding_4bit(OpRegistry& registry) {
  registry.add("quantized_decomposed.embedding_4bit.dtype",
               {check, lower, false, nullptr, "u8 4-bit codes, f32 scales (indices i32, i64)"});
}

}  // namespace wgrt::ops
