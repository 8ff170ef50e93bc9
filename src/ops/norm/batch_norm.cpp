// aten._native_batch_norm_legit_no_training.default (x, weight or Null,
// bias or Null, running_mean, running_var, momentum, eps, out) where out is
// the output tensor or the list [out, save_mean, save_rstd] (the two saved
// statistics are empty in inference and never written). f32 on [N, C, ...];
// every dim but C may change at run time.
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;  // WG in norm/batch_norm.wgsl

struct BatchNormParams {
  uint32_t count = 0, channels = 0, inner = 0;
  float eps = 0;
};
static_assert(sizeof(BatchNormParams) == 16, "must match Params in batch_norm.wgsl");

// The output tensor: argument 7 itself or the first item of its list.
ValueId output_of(const OpArgs& args) {
  if (args.graph().is_tensor(args.id(7))) return args.id(7);
  const ValueList& list = args.value_list(7);
  if (list.items.empty() || !args.graph().is_tensor(list.items[0])) args.fail(7, "expected [out, save_mean, save_rstd]");
  return list.items[0];
}

void check(const OpArgs& args) {
  args.expect_count(8);
  const Tensor& x = args.tensor(0, {DType::F32});
  if (x.max_dims.size() < 2) args.fail(0, "expected [N, C, ...], got " + dims_string(x.max_dims));
  const Dims c = {x.max_dims[1]};
  for (size_t i : {size_t{1}, size_t{2}, size_t{3}, size_t{4}}) {
    if ((i == 1 || i == 2) && args.is_null(i)) continue;
    if (args.tensor(i, {DType::F32}).max_dims != c) {
      args.fail(i, "expected shape " + dims_string(c) + ", got " + dims_string(args.tensor(i).max_dims));
    }
  }
  args.number(5);
  args.number(6);
  const Tensor& out = args.graph().tensor(output_of(args));
  if (out.dtype != DType::F32 || out.max_dims != x.max_dims) {
    args.fail(7, "expected output f32 " + dims_string(x.max_dims) + ", got " + std::string(dtype_name(out.dtype)) + " " +
                     dims_string(out.max_dims));
  }
}

void lower(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId x = ctx.arg(0), out = output_of(args);
  const bool has_weight = !args.is_null(1), has_bias = !args.is_null(2);
  const auto& pipeline = ctx.pipeline("norm/batch_norm.wgsl", "main",
                                      {{"WG", kWorkgroup}, {"HAS_WEIGHT", has_weight ? 1.0 : 0.0}, {"HAS_BIAS", has_bias ? 1.0 : 0.0}});
  const UniformId u = ctx.uniform(sizeof(BatchNormParams));
  const ValueId mean = ctx.arg(3);
  // The mean stands in for an absent weight or bias (never read).
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(has_weight ? ctx.arg(1) : mean),
                                               ctx.tensor(has_bias ? ctx.arg(2) : mean), ctx.tensor(mean),
                                               ctx.tensor(ctx.arg(4)), ctx.tensor(out), ctx.uniform_binding(u)});
  const float eps = static_cast<float>(args.number(6));
  ctx.on_resize({x}, [=](ResizeContext& r) {
    const Dims& dims = r.dims(x);
    r.set_dims(out, dims);
    BatchNormParams p;
    p.count = static_cast<uint32_t>(numel(dims));
    p.channels = static_cast<uint32_t>(dims[1]);
    p.inner = static_cast<uint32_t>(numel(Dims(dims.begin() + 2, dims.end())));
    p.eps = eps;
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.count, kWorkgroup)));
  });
}

}  // namespace

void register_batch_norm(OpRegistry& registry) {
  registry.add("aten._native_batch_norm_legit_no_training.default", {check, lower});
}

}  // namespace wgrt::ops
