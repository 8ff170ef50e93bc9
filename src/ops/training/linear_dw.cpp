// et_vk.linear_dW.default (d_out f32 [..., N], x f32 [..., K], out f32 [N, K]):
// the straight-through weight gradient ExecuTorch's on-device training
// takes through a frozen 4-bit base (linear_dw.wgsl). The rows of d_out
// and x are the live leading dims; they must agree.
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;

struct DwParams {
  uint32_t m = 0, n = 0, k = 0, pad = 0;
};
static_assert(sizeof(DwParams) == 16, "must match Params in linear_dw.wgsl");

void check(const OpArgs& args) {
  args.expect_count(3);
  const Tensor& d = args.tensor(0, {DType::F32});
  const Tensor& x = args.tensor(1, {DType::F32});
  args.expect_rank_at_least(0, 1);
  args.expect_rank_at_least(1, 1);
  const int64_t n = d.max_dims.back(), k = x.max_dims.back();
  if (n < 1 || k < 1 || numel(d.max_dims) / n != numel(x.max_dims) / k) {
    args.fail(1, "x " + dims_string(x.max_dims) + " must have as many rows as d_out " + dims_string(d.max_dims));
  }
  const Tensor& out = args.tensor(2, {DType::F32});
  if (out.max_dims != Dims{n, k}) {
    args.fail(2, "expected shape " + dims_string(Dims{n, k}) + ", got " + dims_string(out.max_dims));
  }
}

void lower(OpContext& ctx) {
  const ValueId d = ctx.arg(0), x = ctx.arg(1), out = ctx.arg(2);
  const auto& pipeline = ctx.pipeline("training/linear_dw.wgsl", "main", {{"WG", kWorkgroup}});
  const UniformId u = ctx.uniform(sizeof(DwParams));
  const DispatchId dispatch =
      ctx.dispatch(pipeline, {ctx.tensor(d), ctx.tensor(x), ctx.tensor(out), ctx.uniform_binding(u)});
  DwParams base;
  base.n = static_cast<uint32_t>(ctx.max_dims(d).back());
  base.k = static_cast<uint32_t>(ctx.max_dims(x).back());
  ctx.on_resize({d, x}, [=](ResizeContext& r) {
    DwParams p = base;
    p.m = static_cast<uint32_t>(numel(r.dims(d)) / p.n);
    if (numel(r.dims(x)) / p.k != p.m) {
      throw Error(ErrorCode::InvalidArgument, "et_vk.linear_dW: x " + dims_string(r.dims(x)) +
                                                  " and d_out " + dims_string(r.dims(d)) + " have different rows");
    }
    r.write_uniform(u, p);
    r.set_workgroups(dispatch, r.fold(gpu::div_up(uint64_t(p.n) * p.k, kWorkgroup)));
  });
}

}  // namespace

void register_linear_dw(OpRegistry& registry) {
  registry.add("et_vk.linear_dW.default", {check, lower, false, nullptr, "f32"});
}

}  // namespace wgrt::ops
