// aten.index_select.default (x, dim, index [k], out), aten.index.Tensor
// (x, indices, out) and aten.gather.default (x, dim, index, sparse_grad, out)
// on gather.wgsl: x and out f32, i32 or i64; index i32 or i64. index.Tensor
// takes the form VulkanPartitioner delegates, one 1D index tensor among
// Nulls (x[:, i]), which is index_select along that index's position. Out-of-range indices are not reported (as in ExecuTorch's
// Vulkan kernels): they read the nearest edge row. Every dim may change at run time.
#include <optional>
#include <utility>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/shapes.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;  // WG in indexing/gather.wgsl

constexpr size_t kMaxRank = 8;

struct GatherParams {
  uint32_t count = 0, rank = 0, dim = 0, dim_size = 0;
  uint32_t out_dims[kMaxRank] = {}, x_strides[kMaxRank] = {};
};
static_assert(sizeof(GatherParams) == 80, "must match Params in gather.wgsl");

enum class Form { IndexSelect, IndexTensor, Gather };

// Where each form keeps its arguments.
struct Slots {
  size_t index, out;
};
Slots slots(Form f) {
  switch (f) {
    case Form::IndexSelect: return {2, 3};
    case Form::IndexTensor: return {1, 2};
    case Form::Gather: return {2, 4};
  }
  return {0, 0};
}

bool word_dtype(DType t) { return t == DType::F32 || t == DType::I32 || t == DType::I64; }

Dims out_dims(bool gather, const Dims& x, size_t dim, const Dims& index) {
  if (gather) return index;
  Dims out = x;
  out[dim] = index.empty() ? 1 : index[0];
  return out;
}

// index.Tensor's indices list: the one tensor among Nulls, and its position
// (the dim it indexes).
std::pair<ValueId, size_t> tensor_index(const OpArgs& args) {
  const std::vector<ValueId>& items = args.value_list(1).items;
  std::optional<size_t> at;
  for (size_t i = 0; i < items.size(); ++i) {
    if (std::holds_alternative<Null>(args.graph().values.at(items[i]))) continue;
    if (at) args.unsupported(1, "indices: more than one index tensor (only one 1D index is supported)");
    at = i;
  }
  if (!at) args.fail(1, "indices: no index tensor");
  if (!args.graph().is_tensor(items[*at])) args.fail(1, "indices: entry " + std::to_string(*at) + " is not a tensor");
  return {items[*at], *at};
}

// The index tensor and dim of any form (index.Tensor's dim is where its index sits).
std::pair<ValueId, int64_t> index_and_dim(const OpArgs& args, Form form) {
  if (form == Form::IndexTensor) {
    const auto [id, dim] = tensor_index(args);
    return {id, int64_t(dim)};
  }
  return {args.id(2), args.integer(1)};
}

// torch.gather reads x at the index's coordinates but along `dim`: every
// other size of the index must fit in x's, or the read leaves x (the kernel
// clamps only along `dim`).
template <typename Fail>
void check_gather_sizes(const Dims& x, const Dims& index, size_t dim, const Fail& fail) {
  for (size_t d = 0; d < x.size(); ++d) {
    if (d != dim && index[d] > x[d]) {
      fail("index size " + std::to_string(index[d]) + " of dim " + std::to_string(d) + " exceeds the input's " +
           std::to_string(x[d]) + " (" + dims_string(index) + " into " + dims_string(x) + ")");
    }
  }
}

size_t check(const OpArgs& args, Form form) {
  const bool gather = form == Form::Gather;
  const Slots s = slots(form);
  args.expect_count(s.out + 1);
  const Tensor& x = args.tensor(0);
  if (!word_dtype(x.dtype)) args.fail(0, "expected f32, i32 or i64, got " + std::string(dtype_name(x.dtype)));
  if (x.max_dims.empty() || x.max_dims.size() > kMaxRank) args.fail(0, "expected rank 1 to " + std::to_string(kMaxRank));
  const auto [index_id, dim_arg] = index_and_dim(args, form);
  const auto dim = normalize_dim(dim_arg, x.max_dims.size());
  if (!dim) args.fail(1, "dim " + std::to_string(dim_arg) + " is out of range for rank " + std::to_string(x.max_dims.size()));
  const Tensor& index = args.graph().tensor(index_id);
  if (index.dtype != DType::I32 && index.dtype != DType::I64) {
    args.fail(s.index, "index: expected i32 or i64, got " + std::string(dtype_name(index.dtype)));
  }
  if (gather && index.max_dims.size() != x.max_dims.size()) args.fail(2, "expected the input's rank");
  if (gather) check_gather_sizes(x.max_dims, index.max_dims, *dim, [&](const std::string& why) { args.fail(2, why); });
  if (!gather && index.max_dims.size() > 1) args.fail(2, "expected a 1D index, got " + dims_string(index.max_dims));
  if (gather) args.boolean(3);
  const size_t out = s.out;
  args.expect_same_dtype(0, out);
  const Dims want = out_dims(gather, x.max_dims, *dim, index.max_dims);
  if (args.tensor(out).max_dims != want) args.fail(out, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(out).max_dims));
  return *dim;
}

void lower(OpContext& ctx, Form form) {
  const bool gather = form == Form::Gather;
  const size_t dim = check(ctx.args(), form);
  const ValueId x = ctx.arg(0), index = index_and_dim(ctx.args(), form).first, out = ctx.arg(slots(form).out);
  const UniformId u = ctx.uniform(sizeof(GatherParams));
  const DispatchId d = ctx.dispatch(ctx.pipeline("indexing/gather.wgsl", "main", {{"WG", kWorkgroup}, {"MODE", gather ? 1.0 : 0.0}}),
                                    {ctx.tensor(x), ctx.tensor(index), ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({x, index}, [=](ResizeContext& r) {
    const Dims& xd = r.dims(x);
    const Dims od = out_dims(gather, xd, dim, r.dims(index));
    const char* name = gather ? "gather" : form == Form::IndexSelect ? "index_select" : "index.Tensor";
    const auto fail = [name](const std::string& why) {
      throw Error(ErrorCode::InvalidArgument, std::string(name) + ": " + why);
    };
    if (gather) check_gather_sizes(xd, r.dims(index), dim, fail);
    // An empty table has no row to clamp to: torch refuses any index there.
    if (xd[dim] == 0 && numel(r.dims(index)) > 0) fail("an index into dim " + std::to_string(dim) + " of size 0");
    r.set_dims(out, od);
    GatherParams p;
    p.count = uint32_t(numel(od));
    p.rank = uint32_t(od.size());
    p.dim = uint32_t(dim);
    p.dim_size = uint32_t(xd[dim]);
    const auto strides = contiguous_strides(xd);
    for (size_t i = 0; i < od.size(); ++i) {
      p.out_dims[i] = uint32_t(od[i]);
      p.x_strides[i] = uint32_t(strides[i]);
    }
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.count, kWorkgroup)));
  });
}

}  // namespace

void register_indexing(OpRegistry& registry) {
  for (const auto& [name, form] : {std::pair{"aten.index_select.default", Form::IndexSelect},
                                    std::pair{"aten.index.Tensor", Form::IndexTensor}, std::pair{"aten.gather.default", Form::Gather}}) {
    const Form f = form;  // clang 15 (the sanitizer build) cannot capture a structured binding
    registry.add(name, {[f](const OpArgs& a) { check(a, f); }, [f](OpContext& c) { lower(c, f); }, false, nullptr,
                        "f32, i32, i64 (indices i32, i64)"});
  }
}

}  // namespace wgrt::ops
