// aten._weight_int8pack_mm.default (x, weight int8 [N, K], scales [N], out)
// and et_vk.linear_qcs4w.default (x, weight uint8 [N, ceil(K/2)] packed 4-bit,
// scales [N], out): weight-only linear with per-output-channel scales, as
// VulkanQuantizer's weight-only 8-bit and 4-bit flows produce it (the bias,
// when there is one, follows as an aten.add). x is f32 [..., K]; every dim
// of x but K may change at run time. linear_qcw.wgsl has the numerics.
// A weight above the binding limit comes in runs of rows (output features,
// graph/memory_plan.h), like aten.linear's: one dispatch per run, writing
// its columns of out with its scales (one run, row0 0, otherwise).
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/qparams.h"
#include "ops/common/row_runs.h"
#include "ops/register_ops.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;  // WG in linear/linear_qcw.wgsl

struct QcwParams {
  uint32_t m = 0, n = 0, k = 0, w_row_bytes = 0;
  uint32_t row0 = 0, out_cols = 0, pad[2] = {};  // a run of weight rows: n of them, out's columns row0 ..
};
static_assert(sizeof(QcwParams) == 32, "must match Params in linear_qcw.wgsl");

void check(const OpArgs& args, uint32_t bits) {
  args.expect_count(4);
  const Tensor& x = args.tensor(0, {DType::F32});
  args.expect_rank_at_least(0, 1);
  const Tensor& w = args.tensor(1, {bits == 8 ? DType::I8 : DType::U8});
  args.expect_rank(1, 2);
  const int64_t k = x.max_dims.back(), n = w.max_dims[0];
  const int64_t row_bytes = bits == 8 ? k : (k + 1) / 2;
  if (w.max_dims[1] != row_bytes) {
    args.fail(1, "expected [N, " + std::to_string(row_bytes) + "] for K = " + std::to_string(k) + ", got " +
                     dims_string(w.max_dims));
  }
  check_scale_tensor(args, 2, n);
  Dims want = x.max_dims;
  want.back() = n;
  if (args.tensor(3, {DType::F32}).max_dims != want) {
    args.fail(3, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(3).max_dims));
  }
}

void lower(OpContext& ctx, uint32_t bits) {
  const ValueId x = ctx.arg(0), w = ctx.arg(1), out = ctx.arg(3);
  const auto& pipeline = ctx.pipeline("linear/linear_qcw.wgsl", "main", {{"WG", kWorkgroup}, {"W_BITS", double(bits)}});
  const gpu::BufferBinding scales = ctx.tensor(ctx.arg(2));
  const std::vector<RowRunDispatch> runs =
      dispatch_row_runs(ctx, w, sizeof(QcwParams), pipeline, [&](gpu::BufferBinding run, gpu::BufferBinding u) {
        return std::vector<gpu::BufferBinding>{ctx.tensor(x), run, scales, ctx.tensor(out), u};
      });
  QcwParams base;
  base.out_cols = static_cast<uint32_t>(ctx.max_dims(w)[0]);
  base.k = static_cast<uint32_t>(ctx.max_dims(x).back());
  base.w_row_bytes = static_cast<uint32_t>(ctx.max_dims(w)[1]);
  ctx.on_resize({x}, [=](ResizeContext& r) {
    Dims dims = r.dims(x);
    QcwParams p = base;
    p.m = static_cast<uint32_t>(numel(dims) / p.k);
    dims.back() = p.out_cols;
    r.set_dims(out, dims);
    for (const RowRunDispatch& run : runs) {
      p.row0 = run.first_row;
      p.n = run.rows;
      r.write_uniform(run.uniform, p);
      r.set_workgroups(run.dispatch, r.fold(gpu::div_up(gpu::div_up(uint64_t(p.m) * p.n, 4), kWorkgroup)));
    }
  });
}

}  // namespace

void register_linear_qcw(OpRegistry& registry) {
  registry.add("aten._weight_int8pack_mm.default",
               {[](const OpArgs& a) { check(a, 8); }, [](OpContext& c) { lower(c, 8); }, false, nullptr,
                "f32 (int8 weights)"});
  registry.add("et_vk.linear_qcs4w.default",
               {[](const OpArgs& a) { check(a, 4); }, [](OpContext& c) { lower(c, 4); }, false, nullptr,
                "f32 (4-bit weights)"});
}

}  // namespace wgrt::ops
