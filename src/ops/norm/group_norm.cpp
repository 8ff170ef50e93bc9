// aten.native_group_norm.default (x, weight or Null, bias or Null, N, C, HxW,
// group, eps, [out, mean, rstd]): f32 on [N, C, ...], on layer_norm.wgsl with
// GROUPS set (a row is one group of one sample). mean and rstd are [N, group];
// scratch takes them when the list has no tensor for them. N and the spatial
// dims may change at run time.
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 128;

// Mirrors `Params` in layer_norm.wgsl.
struct NormParams {
  uint32_t rows = 0, d = 0;
  float eps = 0;
  uint32_t hw = 1;
};

constexpr ValueId kNoValue = ~ValueId{0};

std::array<ValueId, 3> outputs(const OpArgs& args) {
  const ValueList& list = args.value_list(8);
  if (list.items.empty() || list.items.size() > 3) args.fail(8, "expected [out, mean, rstd]");
  std::array<ValueId, 3> ids = {kNoValue, kNoValue, kNoValue};
  for (size_t i = 0; i < list.items.size(); ++i) {
    if (args.graph().is_tensor(list.items[i])) ids[i] = list.items[i];
  }
  if (ids[0] == kNoValue) args.fail(8, "item 0 (out) is not a tensor");
  return ids;
}

void check(const OpArgs& args) {
  args.expect_count(9);
  const Tensor& x = args.tensor(0, {DType::F32});
  if (x.max_dims.size() < 2) args.fail(0, "expected [N, C, ...], got " + dims_string(x.max_dims));
  const int64_t c = x.max_dims[1];
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (!args.is_null(i) && args.tensor(i, {DType::F32}).max_dims != Dims{c}) {
      args.fail(i, "expected shape [" + std::to_string(c) + "], got " + dims_string(args.tensor(i).max_dims));
    }
  }
  if (args.integer(4) != c) args.fail(4, "C " + std::to_string(args.integer(4)) + " but the input has " + std::to_string(c) + " channels");
  const int64_t groups = args.integer(6);
  if (groups < 1 || c % groups != 0) args.fail(6, "group " + std::to_string(groups) + " does not divide " + std::to_string(c) + " channels");
  args.number(7);
  const auto ids = outputs(args);
  const Tensor& out = args.graph().tensor(ids[0]);
  if (out.dtype != DType::F32 || out.max_dims != x.max_dims) args.fail(8, "out: expected f32 " + dims_string(x.max_dims));
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (ids[i] == kNoValue) continue;
    const Tensor& t = args.graph().tensor(ids[i]);
    if (t.dtype != DType::F32 || numel(t.max_dims) != x.max_dims[0] * groups) {
      args.fail(8, "item " + std::to_string(i) + ": expected f32 [N, group], got " + dims_string(t.max_dims));
    }
  }
}

void lower(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId x = ctx.arg(0);
  const auto ids = outputs(args);
  const int64_t groups = args.integer(6);
  const bool has_weight = !args.is_null(1), has_bias = !args.is_null(2);
  const uint64_t stat_bytes = uint64_t(ctx.max_dims(x)[0] * groups) * sizeof(float);
  const gpu::BufferBinding mean = ids[1] == kNoValue ? ctx.scratch(stat_bytes, "group_norm mean") : ctx.tensor(ids[1]);
  const gpu::BufferBinding rstd = ids[2] == kNoValue ? ctx.scratch(stat_bytes, "group_norm rstd") : ctx.tensor(ids[2]);
  const auto& pipeline = ctx.pipeline("norm/layer_norm.wgsl", "main",
                                      {{"WG", kWorkgroup}, {"HAS_WEIGHT", has_weight ? 1.0 : 0.0},
                                       {"HAS_BIAS", has_bias ? 1.0 : 0.0}, {"GROUPS", double(groups)}});
  const UniformId u = ctx.uniform(sizeof(NormParams));
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(has_weight ? ctx.arg(1) : x),
                                               ctx.tensor(has_bias ? ctx.arg(2) : x), ctx.tensor(ids[0]), mean, rstd,
                                               ctx.uniform_binding(u)});
  const float eps = static_cast<float>(args.number(7));
  ctx.on_resize({x}, [=](ResizeContext& r) {
    const Dims& dims = r.dims(x);
    r.set_dims(ids[0], dims);
    for (size_t i : {size_t{1}, size_t{2}}) {
      if (ids[i] == kNoValue) continue;
      Dims s = r.max_dims(ids[i]);
      s[0] = dims[0];
      r.set_dims(ids[i], s);
    }
    NormParams p;
    p.rows = uint32_t(dims[0] * groups);
    p.hw = uint32_t(numel(Dims(dims.begin() + 2, dims.end())));
    p.d = uint32_t(dims[1] / groups) * p.hw;
    p.eps = eps;
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(p.rows));
  });
}

}  // namespace

void register_group_norm(OpRegistry& registry) { registry.add("aten.native_group_norm.default", {check, lower}); }

}  // namespace wgrt::ops
