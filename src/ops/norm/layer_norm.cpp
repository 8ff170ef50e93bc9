// aten.native_layer_norm.default (x, normalized_shape, weight or Null, bias or
// Null, eps, ValueList[out, mean, rstd]): f32, normalizing over the trailing
// dims named by normalized_shape. mean and rstd are x's leading dims followed
// by ones ([..., 1, 1]); when the list holds no tensor for them, scratch
// takes their values.
#include <algorithm>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 128;  // a power of two: the tree reductions halve it

struct LayerNormParams {
  uint32_t rows = 0;
  uint32_t d = 0;
  float eps = 0;
  uint32_t hw = 1;
};
static_assert(sizeof(LayerNormParams) == 16, "must match Params in layer_norm.wgsl");

// The output list's items: out, then mean and rstd (kNoValue when absent).
constexpr ValueId kNoValue = ~ValueId{0};

std::vector<ValueId> outputs(const Graph& graph, const OpArgs& args) {
  const ValueList& list = args.value_list(5);
  if (list.items.empty() || list.items.size() > 3) {
    args.fail(5, "expected [out, mean, rstd], got " + std::to_string(list.items.size()) + " values");
  }
  std::vector<ValueId> ids(3, kNoValue);
  for (size_t i = 0; i < list.items.size(); ++i) {
    if (graph.is_tensor(list.items[i])) ids[i] = list.items[i];
  }
  if (ids[0] == kNoValue) args.fail(5, "item 0 (out) is not a tensor");
  return ids;
}

Dims stats_dims(Dims dims, size_t norm_rank) {
  std::fill(dims.end() - static_cast<ptrdiff_t>(norm_rank), dims.end(), 1);
  return dims;
}

void check(const OpArgs& args) {
  args.expect_count(6);
  const Tensor& x = args.tensor(0, {DType::F32});
  const IntList& shape = args.int_list(1);
  if (shape.empty() || shape.size() > x.max_dims.size() ||
      !std::equal(shape.begin(), shape.end(), x.max_dims.end() - static_cast<ptrdiff_t>(shape.size()))) {
    args.fail(1, "normalized shape " + dims_string(shape) + " is not a suffix of " + dims_string(x.max_dims));
  }
  for (size_t i : {size_t{2}, size_t{3}}) {
    if (args.is_null(i)) continue;
    if (args.tensor(i, {DType::F32}).max_dims != shape) args.fail(i, "expected shape " + dims_string(shape));
  }
  args.number(4);
  const size_t n = args.value_list(5).items.size();
  if (n == 0 || n > 3) args.fail(5, "expected [out, mean, rstd], got " + std::to_string(n) + " values");
}

// The list's tensors need the graph, which check does not get (as cat's inputs).
void check_outputs(const Graph& graph, const OpArgs& args, const std::vector<ValueId>& ids) {
  const Dims& x = args.tensor(0).max_dims;
  const Dims stats = stats_dims(x, args.int_list(1).size());
  const Dims* want[] = {&x, &stats, &stats};
  for (size_t i = 0; i < 3; ++i) {
    if (ids[i] == kNoValue) continue;
    const Tensor& t = graph.tensor(ids[i]);
    if (t.dtype != DType::F32 || t.max_dims != *want[i]) {
      args.fail(5, "item " + std::to_string(i) + ": expected f32 " + dims_string(*want[i]) + ", got " +
                       std::string(dtype_name(t.dtype)) + " " + dims_string(t.max_dims));
    }
  }
}

void lower(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId x = ctx.arg(0);
  const auto ids = outputs(ctx.graph(), args);
  check_outputs(ctx.graph(), args, ids);
  const ValueId out = ids[0], mean = ids[1], rstd = ids[2];
  const size_t norm_rank = args.int_list(1).size();
  const bool has_weight = !args.is_null(2), has_bias = !args.is_null(3);
  const int64_t max_rows = numel(ctx.max_dims(x)) / numel(args.int_list(1));
  const uint64_t stat_bytes = static_cast<uint64_t>(std::max<int64_t>(max_rows, 1)) * sizeof(float);
  const gpu::BufferBinding mean_binding = mean == kNoValue ? ctx.scratch(stat_bytes, "layer_norm mean") : ctx.tensor(mean);
  const gpu::BufferBinding rstd_binding = rstd == kNoValue ? ctx.scratch(stat_bytes, "layer_norm rstd") : ctx.tensor(rstd);
  const auto& pipeline = ctx.pipeline("norm/layer_norm.wgsl", "main",
                                      {{"WG", kWorkgroup}, {"HAS_WEIGHT", has_weight ? 1 : 0}, {"HAS_BIAS", has_bias ? 1 : 0}});
  const UniformId u = ctx.uniform(sizeof(LayerNormParams));
  // x stands in for an absent weight or bias (never read).
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(has_weight ? ctx.arg(2) : x),
                                               ctx.tensor(has_bias ? ctx.arg(3) : x), ctx.tensor(out), mean_binding,
                                               rstd_binding, ctx.uniform_binding(u)});
  const float eps = static_cast<float>(args.number(4));
  ctx.on_resize({x}, [=](ResizeContext& r) {
    const Dims& dims = r.dims(x);
    r.set_dims(out, dims);
    const Dims stats = stats_dims(dims, norm_rank);
    if (mean != kNoValue) r.set_dims(mean, stats);
    if (rstd != kNoValue) r.set_dims(rstd, stats);
    LayerNormParams p;
    p.d = static_cast<uint32_t>(numel(Dims(dims.end() - static_cast<ptrdiff_t>(norm_rank), dims.end())));
    p.rows = static_cast<uint32_t>(p.d == 0 ? 0 : numel(dims) / p.d);
    p.eps = eps;
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(p.rows));
  });
}

}  // namespace

void register_layer_norm(OpRegistry& registry) {
  registry.add("aten.native_layer_norm.default", {check, lower});
}

}  // namespace wgrt::ops
