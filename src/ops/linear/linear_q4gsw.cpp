// et_vk.linear_q4gsw.default (x, weight, scales, group_size, bias or Null, out):
// x [..., K] f32, weight u8 [N, K/2] (two int4 per byte, +8 offset, even k in
// the low nibble), scales f32 [K / group_size, padded_N], out [..., N].
// Both kernels are recorded once; the hook gives workgroups to GEMV when the
// live M (rows of x) is 1 and to the tiled GEMM otherwise, so bind groups
// never change. The GEMM is the family's (linear/gemm.h, decoding through
// q4gsw_unit.wgsl) when K % 32 == 0 and the device fits it, else the 16 x 16
// tiles of linear_q4gsw.wgsl.
#include "ops/linear/linear_q4gsw.h"

#include <vector>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/row_runs.h"
#include "ops/linear/gemm.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kGemvWorkgroup = 64;
constexpr uint32_t kGemvRows = 4;  // ROWS in linear_q4gsw.wgsl
constexpr uint32_t kTile = 16;     // TILE in linear_q4gsw.wgsl

struct LinearParams {
  uint32_t m = 0;
  uint32_t n = 0;
  uint32_t k = 0;
  uint32_t group_size = 0;
  uint32_t scales_stride = 0;
  uint32_t tiles_n = 0;
  uint32_t row0 = 0, out_cols = 0;  // the run of weight rows bound, and out's width
};
static_assert(sizeof(LinearParams) == 32, "must match Params in linear_q4gsw.wgsl");

void check(const OpArgs& args) {
  args.expect_count(6);
  check_q4gsw_args(args, {0, 1, 2, 3, 4, 5});
}

void lower(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  record_linear_q4gsw(ctx, ctx.tensor(ctx.arg(0)), ctx.arg(0), ctx.arg(1), ctx.arg(2), args.integer(3),
                      args.is_null(4) ? kNoBias : ctx.arg(4), ctx.arg(5));
}

}  // namespace

void check_q4gsw_args(const OpArgs& args, const Q4gswArgs& at) {
  const Tensor& x = args.tensor(at.x, {DType::F32});
  args.expect_rank_at_least(at.x, 1);
  const Tensor& w = args.tensor(at.weights, {DType::U8});
  args.expect_rank(at.weights, 2);
  const Tensor& s = args.tensor(at.scales, {DType::F32});
  args.expect_rank(at.scales, 2);
  const int64_t k = x.max_dims.back(), n = w.max_dims[0];
  if (k % 8 != 0) args.fail(at.x, "K = " + std::to_string(k) + " is not a multiple of 8");
  if (w.max_dims[1] * 2 != k) {
    args.fail(at.weights, "expected [N, " + std::to_string(k / 2) + "] (K/2 bytes per row), got " + dims_string(w.max_dims));
  }
  const int64_t gs = args.integer(at.group_size);
  if (gs <= 0 || gs % 8 != 0 || k % gs != 0) {
    args.fail(at.group_size, "group size " + std::to_string(gs) + " must be a positive multiple of 8 dividing K = " +
                     std::to_string(k));
  }
  if (s.max_dims[0] != k / gs || s.max_dims[1] < n) {
    args.fail(at.scales, "expected [" + std::to_string(k / gs) + ", >= " + std::to_string(n) + "], got " +
                     dims_string(s.max_dims));
  }
  if (!args.is_null(at.bias)) {
    args.tensor(at.bias, {DType::F32});
    if (args.tensor(at.bias).max_dims != Dims{n}) args.fail(at.bias, "expected bias [" + std::to_string(n) + "]");
  }
  Dims want = x.max_dims;
  want.back() = n;
  args.tensor(at.out, {DType::F32});
  if (args.tensor(at.out).max_dims != want) {
    args.fail(at.out, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(at.out).max_dims));
  }
}

void record_linear_q4gsw(OpContext& ctx, const gpu::BufferBinding& x_data, ValueId x, ValueId w, ValueId scales,
                         int64_t group_size, ValueId bias_id, ValueId out) {
  const bool has_bias = bias_id != kNoBias;
  const gpu::BufferBinding bias = ctx.tensor(has_bias ? bias_id : scales);  // placeholder when absent
  const double bias_flag = has_bias ? 1 : 0;
  const auto& gemv =
      ctx.pipeline("linear/linear_q4gsw.wgsl", "gemv", {{"WG", kGemvWorkgroup}, {"HAS_BIAS", bias_flag}});
  const auto& gemm = ctx.pipeline("linear/linear_q4gsw.wgsl", "gemm", {{"HAS_BIAS", bias_flag}});
  const uint32_t k = static_cast<uint32_t>(ctx.max_dims(x).back());
  GemmChoice choice;
  // Auto keeps this op's own GEMM: the family's default was measured on
  // GGUF linears only (bench/RESULTS.md).
  const bool family = k % 32 == 0 && ctx.tuning().matmul_precision != MatmulPrecision::Auto &&
                      gemm_choose(ctx.device(), ctx.tuning(), choice, /*storage_buffers=*/9);
  const GemmUnusedBindings unused = family ? gemm_unused_bindings(ctx, x_data) : GemmUnusedBindings{};
  const gpu::ComputePipeline* family_pipeline =
      family ? &gemm_pipeline(ctx, choice, "linear/q4gsw_unit.wgsl",
                              {{"GROUP_SIZE", double(group_size)},
                               {"SCALES_STRIDE", double(ctx.max_dims(scales)[1])},
                               {"HAS_BIAS", bias_flag}})
             : nullptr;
  // A weight above the binding limit comes in runs of rows (memory_plan.h):
  // each run its own GEMV and GEMM, writing its columns of out.
  const std::vector<LinearRunDispatch> parts = record_linear_runs(
      ctx, w, sizeof(LinearParams), family ? sizeof(GemmParams) : 0, [&](gpu::BufferBinding run, LinearRunDispatch& d) {
        const auto bindings = {x_data, run, ctx.tensor(scales), bias, ctx.tensor(out), ctx.uniform_binding(d.params)};
        d.gemv = ctx.dispatch(gemv, bindings, kLinearGemvLabel);
        d.gemm = family ? ctx.dispatch(*family_pipeline,
                                       {x_data, run, bias, ctx.tensor(out), ctx.uniform_binding(d.family_params),
                                        unused.norm, unused.residual, unused.out1, unused.out2, ctx.tensor(scales)},
                                       kGemmLabel)
                        : ctx.dispatch(gemm, bindings, kLinearGemmLabel);
      });

  LinearParams base;
  const uint32_t n = static_cast<uint32_t>(ctx.max_dims(w)[0]);
  base.k = k;
  base.group_size = static_cast<uint32_t>(group_size);
  base.scales_stride = static_cast<uint32_t>(ctx.max_dims(scales)[1]);
  base.out_cols = n;
  ctx.on_resize({x}, [=](ResizeContext& r) {
    Dims dims = r.dims(x);
    const uint32_t m = static_cast<uint32_t>(numel(dims) / base.k);
    dims.back() = n;
    r.set_dims(out, dims);
    const bool one_row = m == 1;
    for (const LinearRunDispatch& part : parts) {
      LinearParams p = base;
      p.m = m;
      p.n = part.rows;
      p.row0 = part.row0;
      p.tiles_n = static_cast<uint32_t>(gpu::div_up(part.rows, kTile));
      r.write_uniform(part.params, p);
      if (family) r.write_uniform(part.family_params, GemmParams::run(m, part.rows, p.k, p.k / 8, part.row0, n));
      r.set_workgroups(part.gemv, r.fold(one_row ? gpu::div_up(part.rows, kGemvRows) : 0));
      const uint64_t gemm_groups =
          family ? gemm_workgroups(choice.tile, m, part.rows) : gpu::div_up(m, kTile) * p.tiles_n;
      r.set_workgroups(part.gemm, r.fold(one_row ? 0 : gemm_groups));
    }
  });
}

void register_linear_q4gsw(OpRegistry& registry) { registry.add("et_vk.linear_q4gsw.default", {check, lower, false, nullptr, "f32 (u8 4-bit weights)"}); }

}  // namespace wgrt::ops
