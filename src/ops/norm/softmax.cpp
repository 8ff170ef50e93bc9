// aten._softmax.default and aten._log_softmax.default (x, dim, half_to_float,
// out): f32 along any dim; the hook views the live shape as [outer, D, inner].
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/shapes.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 128;  // a power of two: the tree reductions halve it

struct SoftmaxParams {
  uint32_t rows = 0;
  uint32_t d = 0;
  uint32_t inner = 0;
  uint32_t pad = 0;
};
static_assert(sizeof(SoftmaxParams) == 16, "must match Params in softmax.wgsl");

size_t softmax_dim(const OpArgs& args) {
  const size_t rank = args.tensor(0).max_dims.size();
  // A 0-d tensor is softmaxed as one element (dim 0 or -1), as torch does.
  const auto d = normalize_dim(args.integer(1), std::max<size_t>(rank, 1));
  if (!d) args.fail(1, "dim " + std::to_string(args.integer(1)) + " out of range for rank " + std::to_string(rank));
  return *d;
}

void check(const OpArgs& args) {
  args.expect_count(4);
  const Tensor& x = args.tensor(0, {DType::F32});
  softmax_dim(args);
  if (args.boolean(2)) args.fail(2, "half_to_float needs a half input; wgrt's softmax is f32");
  args.tensor(3, {DType::F32});
  if (args.tensor(3).max_dims != x.max_dims) {
    args.fail(3, "expected shape " + dims_string(x.max_dims) + ", got " + dims_string(args.tensor(3).max_dims));
  }
}

void lower(OpContext& ctx, bool log) {
  const ValueId x = ctx.arg(0), out = ctx.arg(3);
  const size_t dim = softmax_dim(ctx.args());
  const auto& pipeline = ctx.pipeline("norm/softmax.wgsl", "main", {{"WG", kWorkgroup}, {"LOG", log ? 1 : 0}});
  const UniformId u = ctx.uniform(sizeof(SoftmaxParams));
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({x}, [=](ResizeContext& r) {
    const Dims& dims = r.dims(x);
    r.set_dims(out, dims);
    SoftmaxParams p;
    int64_t inner = 1, size = 1;
    if (!dims.empty()) {
      size = dims[dim];
      for (size_t i = dim + 1; i < dims.size(); ++i) inner *= dims[i];
    }
    p.d = static_cast<uint32_t>(size);
    p.inner = static_cast<uint32_t>(inner);
    p.rows = static_cast<uint32_t>(size == 0 ? 0 : numel(dims) / size);
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(p.rows));
  });
}

}  // namespace

void register_softmax(OpRegistry& registry) {
  registry.add("aten._softmax.default", {check, [](OpContext& c) { lower(c, false); }});
  registry.add("aten._log_softmax.default", {check, [](OpContext& c) { lower(c, true); }});
}

}  // namespace wgrt::ops
