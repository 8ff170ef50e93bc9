// RMSNorm over the last dimension: et_vk.rms_norm.default (x, weight, eps, out).
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/register_ops.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;  // a power of two: the tree reduction halves it

struct RmsNormParams {
  uint32_t rows = 0;
  uint32_t d = 0;
  float eps = 0;
  uint32_t pad = 0;
};
static_assert(sizeof(RmsNormParams) == 16, "must match Params in rms_norm.wgsl");

void check(const OpArgs& args) {
  args.expect_count(4);
  const Tensor& x = args.tensor(0, {DType::F32});
  args.expect_rank_at_least(0, 1);
  const Tensor& w = args.tensor(1, {DType::F32});
  args.expect_rank(1, 1);
  if (w.max_dims[0] != x.max_dims.back()) {
    args.fail(1, "expected " + std::to_string(x.max_dims.back()) + " weights (argument 0's last dim), got " +
                     std::to_string(w.max_dims[0]));
  }
  args.number(2);
  const Tensor& out = args.tensor(3, {DType::F32});
  if (out.max_dims != x.max_dims) {
    args.fail(3, "expected shape " + dims_string(x.max_dims) + ", got " + dims_string(out.max_dims));
  }
}

void lower(OpContext& ctx) {
  const ValueId x = ctx.arg(0), w = ctx.arg(1), out = ctx.arg(3);
  const float eps = static_cast<float>(ctx.args().number(2));
  const auto& pipeline = ctx.pipeline("norm/rms_norm.wgsl", "main", {{"WG", kWorkgroup}});
  const UniformId u = ctx.uniform(sizeof(RmsNormParams));
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(w), ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({x}, [=](ResizeContext& r) {
    const Dims& dims = r.dims(x);
    r.set_dims(out, dims);
    RmsNormParams p;
    p.d = static_cast<uint32_t>(dims.back());
    p.rows = static_cast<uint32_t>(p.d == 0 ? 0 : numel(dims) / p.d);
    p.eps = eps;
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(p.rows));
  });
}

}  // namespace

void register_rms_norm(OpRegistry& registry) {
  registry.add("et_vk.rms_norm.default", {check, lower});
}

}  // namespace wgrt::ops
