// aten.index_select.default (x, dim, index [k], out) and aten.gather.default
// (x, dim, index, sparse_grad, out) on gather.wgsl: x and out f32, i32 or
// i64; index i32 or i64. Out-of-range indices are not checked on the GPU
// (as in ExecuTorch's Vulkan kernels); every dim may change at run time.
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/shapes.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr size_t kMaxRank = 8;

struct GatherParams {
  uint32_t count = 0, rank = 0, dim = 0, dim_size = 0;
  uint32_t out_dims[kMaxRank] = {}, x_strides[kMaxRank] = {};
};
static_assert(sizeof(GatherParams) == 80, "must match Params in gather.wgsl");

bool word_dtype(DType t) { return t == DType::F32 || t == DType::I32 || t == DType::I64; }

Dims out_dims(bool gather, const Dims& x, size_t dim, const Dims& index) {
  if (gather) return index;
  Dims out = x;
  out[dim] = index.empty() ? 1 : index[0];
  return out;
}

size_t check(const OpArgs& args, bool gather) {
  args.expect_count(gather ? 5 : 4);
  const Tensor& x = args.tensor(0);
  if (!word_dtype(x.dtype)) args.fail(0, "expected f32, i32 or i64, got " + std::string(dtype_name(x.dtype)));
  if (x.max_dims.empty() || x.max_dims.size() > kMaxRank) args.fail(0, "expected rank 1 to " + std::to_string(kMaxRank));
  const auto dim = normalize_dim(args.integer(1), x.max_dims.size());
  if (!dim) args.fail(1, "dim " + std::to_string(args.integer(1)) + " is out of range for rank " + std::to_string(x.max_dims.size()));
  const Tensor& index = args.tensor(2, {DType::I32, DType::I64});
  if (gather && index.max_dims.size() != x.max_dims.size()) args.fail(2, "expected the input's rank");
  if (!gather && index.max_dims.size() > 1) args.fail(2, "expected a 1D index, got " + dims_string(index.max_dims));
  if (gather) args.boolean(3);
  const size_t out = gather ? 4 : 3;
  args.expect_same_dtype(0, out);
  const Dims want = out_dims(gather, x.max_dims, *dim, index.max_dims);
  if (args.tensor(out).max_dims != want) args.fail(out, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(out).max_dims));
  return *dim;
}

void lower(OpContext& ctx, bool gather) {
  const size_t dim = check(ctx.args(), gather);
  const ValueId x = ctx.arg(0), index = ctx.arg(2), out = ctx.arg(gather ? 4 : 3);
  const UniformId u = ctx.uniform(sizeof(GatherParams));
  const DispatchId d = ctx.dispatch(ctx.pipeline("indexing/gather.wgsl", "main", {{"MODE", gather ? 1.0 : 0.0}}),
                                    {ctx.tensor(x), ctx.tensor(index), ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({x, index}, [=](ResizeContext& r) {
    const Dims od = out_dims(gather, r.dims(x), dim, r.dims(index));
    r.set_dims(out, od);
    GatherParams p;
    p.count = uint32_t(numel(od));
    p.rank = uint32_t(od.size());
    p.dim = uint32_t(dim);
    p.dim_size = uint32_t(r.dims(x)[dim]);
    const auto strides = contiguous_strides(r.dims(x));
    for (size_t i = 0; i < od.size(); ++i) {
      p.out_dims[i] = uint32_t(od[i]);
      p.x_strides[i] = uint32_t(strides[i]);
    }
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.count, 256)));
  });
}

}  // namespace

void register_indexing(OpRegistry& registry) {
  registry.add("aten.index_select.default", {[](const OpArgs& a) { check(a, false); }, [](OpContext& c) { lower(c, false); },
                                             false, nullptr, "f32, i32, i64 (indices i32, i64)"});
  registry.add("aten.gather.default", {[](const OpArgs& a) { check(a, true); }, [](OpContext& c) { lower(c, true); }, false, nullptr,
                                       "f32, i32, i64 (indices i32, i64)"});
}

}  // namespace wgrt::ops
