// et_vk.linear_q4gsw_backward.default (d_out f32 [..., N], weights u8 [N, K/2],
// scales f32 [K / group_size, >= N], group_size, out f32 [..., K]): the input
// gradient through a frozen linear_q4gsw base (same weight layout; the math
// is in q4gsw_backward.wgsl). K is the weights' full (padded) width, as the
// reference's identity-matrix extraction makes it.
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/qparams.h"
#include "ops/register_ops.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;

struct BackwardParams {
  uint32_t m = 0, n = 0, k = 0, group_size = 0, scales_stride = 0;
  uint32_t pad[3] = {};
};
static_assert(sizeof(BackwardParams) == 32, "must match Params in q4gsw_backward.wgsl");

void check(const OpArgs& args) {
  args.expect_count(5);
  const Tensor& d = args.tensor(0, {DType::F32});
  args.expect_rank_at_least(0, 1);
  const Tensor& w = args.tensor(1, {DType::U8});
  args.expect_rank(1, 2);
  const int64_t n = w.max_dims[0], k = w.max_dims[1] * 2;
  if (n < 1) args.fail(1, "expected at least one weight row, got " + dims_string(w.max_dims));
  if (d.max_dims.back() != n) {
    args.fail(0, "d_out " + dims_string(d.max_dims) + " must end in N = " + std::to_string(n) + " (the weights' rows)");
  }
  const int64_t gs = args.integer(3);
  if (gs <= 0 || k % gs != 0) {
    args.fail(3, "group size " + std::to_string(gs) + " must be positive and divide K = " + std::to_string(k));
  }
  const Tensor& s = args.tensor(2, {DType::F32});
  args.expect_rank(2, 2);
  if (s.max_dims[0] != k / gs || s.max_dims[1] < n) {
    args.fail(2, "expected scales [" + std::to_string(k / gs) + ", >= " + std::to_string(n) + "], got " +
                     dims_string(s.max_dims));
  }
  check_scale_matrix(args, 2, n);
  Dims want = d.max_dims;
  want.back() = k;
  const Tensor& out = args.tensor(4, {DType::F32});
  if (out.max_dims != want) args.fail(4, "expected shape " + dims_string(want) + ", got " + dims_string(out.max_dims));
}

void lower(OpContext& ctx) {
  const ValueId d = ctx.arg(0), w = ctx.arg(1), scales = ctx.arg(2), out = ctx.arg(4);
  const auto& pipeline = ctx.pipeline("training/q4gsw_backward.wgsl", "main", {{"WG", kWorkgroup}});
  const UniformId u = ctx.uniform(sizeof(BackwardParams));
  const DispatchId dispatch = ctx.dispatch(
      pipeline, {ctx.tensor(d), ctx.tensor(w), ctx.tensor(scales), ctx.tensor(out), ctx.uniform_binding(u)});
  BackwardParams base;
  base.n = static_cast<uint32_t>(ctx.max_dims(w)[0]);
  base.k = static_cast<uint32_t>(ctx.max_dims(w)[1] * 2);
  base.group_size = static_cast<uint32_t>(ctx.args().integer(3));
  base.scales_stride = static_cast<uint32_t>(ctx.max_dims(scales)[1]);
  ctx.on_resize({d}, [=](ResizeContext& r) {
    BackwardParams p = base;
    Dims dims = r.dims(d);
    p.m = static_cast<uint32_t>(numel(dims) / p.n);
    dims.back() = p.k;
    r.set_dims(out, dims);
    r.write_uniform(u, p);
    r.set_workgroups(dispatch, r.fold(gpu::div_up(uint64_t(p.m) * p.k, kWorkgroup)));
  });
}

}  // namespace

void register_q4gsw_backward(OpRegistry& registry) {
  registry.add("et_vk.linear_q4gsw_backward.default", {check, lower, false, nullptr, "f32 (u8 4-bit weights)"});
}

}  // namespace wgrt::ops
