// Ops that reorder or replicate elements: aten.permute_copy.default and
// aten.permute.default (self, dims, out), aten.expand_copy.default (self,
// size, implicit, out) and aten.cat.default (tensors, dim, out). Each is a
// strided copy (strided_copy.wgsl) planned from live shapes.
#include "ops/common/shapes.h"
#include "ops/register_ops.h"
#include "ops/shape/size_list.h"
#include "ops/shape/strided_copy.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

void check_copyable(const OpArgs& args, size_t i) {
  const Tensor& t = args.tensor(i);
  if (!copyable(t.dtype)) args.fail(i, "expected a 32-bit or i64 dtype, got " + std::string(dtype_name(t.dtype)));
  if (t.max_dims.size() > kMaxCopyRank) args.fail(i, "rank above " + std::to_string(kMaxCopyRank));
}

std::vector<size_t> permutation(const OpArgs& args) {
  const size_t rank = args.tensor(0).max_dims.size();
  const IntList& dims = args.int_list(1);
  if (dims.size() != rank) args.fail(1, "expected " + std::to_string(rank) + " dims, got " + std::to_string(dims.size()));
  std::vector<size_t> perm;
  std::vector<bool> seen(rank, false);
  for (int64_t d : dims) {
    const auto n = normalize_dim(d, rank);
    if (!n || seen[*n]) args.fail(1, "not a permutation of " + std::to_string(rank) + " dims");
    seen[*n] = true;
    perm.push_back(*n);
  }
  return perm;
}

void check_permute(const OpArgs& args) {
  args.expect_count(3);
  check_copyable(args, 0);
  args.expect_same_dtype(0, 2);
  const auto perm = permutation(args);
  Dims want;
  for (size_t p : perm) want.push_back(args.tensor(0).max_dims[p]);
  if (args.tensor(2).max_dims != want) {
    args.fail(2, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(2).max_dims));
  }
}

void lower_permute(OpContext& ctx) {
  const ValueId in = ctx.arg(0), out = ctx.arg(2);
  const auto perm = permutation(ctx.args());
  const StridedCopy copy = record_strided_copy(ctx, in, out);
  ctx.on_resize({in}, [=](ResizeContext& r) {
    const auto strides = contiguous_strides(r.dims(in));
    CopyPlan plan;
    for (size_t p : perm) {
      plan.dims.push_back(r.dims(in)[p]);
      plan.in_strides.push_back(strides[p]);
    }
    plan.out_strides = contiguous_strides(plan.dims);
    r.set_dims(out, plan.dims);
    write_plan(r, copy, plan);
  });
}

// expand: right-aligned; a size of -1 keeps the input's dim. An input dim
// that is dynamic (max > 1) follows its live size; one of size 1 broadcasts.
Dims expand_dims(const std::vector<int64_t>& sizes, const Dims& in_live, const Dims& in_max) {
  Dims out(sizes.begin(), sizes.end());
  const size_t lead = sizes.size() - in_live.size();
  for (size_t i = 0; i < in_live.size(); ++i) {
    if (in_max[i] != 1 || sizes[lead + i] == -1) out[lead + i] = in_live[i];
  }
  return out;
}

void check_expand(const OpArgs& args) {
  args.expect_count(4);
  check_copyable(args, 0);
  args.expect_same_dtype(0, 3);
  SizeList::check(args, 1);
  const Dims& in = args.tensor(0).max_dims;
  const Dims& out = args.tensor(3).max_dims;
  if (out.size() < in.size() || out.size() > kMaxCopyRank) args.fail(3, "bad rank for expanding " + dims_string(in));
  for (size_t i = 0; i < in.size(); ++i) {
    const int64_t o = out[out.size() - in.size() + i];
    if (in[i] != 1 && in[i] != o) args.fail(3, "shape " + dims_string(out) + " does not expand " + dims_string(in));
  }
}

void lower_expand(OpContext& ctx) {
  const ValueId in = ctx.arg(0), out = ctx.arg(3);
  const SizeList sizes = SizeList::read(ctx, 1);
  if (sizes.size() != ctx.max_dims(out).size()) ctx.args().fail(1, "expected one size per output dim");
  const StridedCopy copy = record_strided_copy(ctx, in, out);
  auto deps = sizes.symints();
  deps.push_back(in);
  ctx.on_resize(deps, [=](ResizeContext& r) {
    const Dims& live = r.dims(in);
    CopyPlan plan;
    plan.dims = expand_dims(sizes.resolve(r), live, r.max_dims(in));
    plan.in_strides.assign(plan.dims.size(), 0);
    const auto strides = contiguous_strides(live);
    const size_t lead = plan.dims.size() - live.size();
    for (size_t i = 0; i < live.size(); ++i) {
      if (live[i] == plan.dims[lead + i]) plan.in_strides[lead + i] = strides[i];
      else if (live[i] != 1) throw Error(ErrorCode::InvalidArgument, "expand: live " + dims_string(live) +
                                                                        " does not expand to " + dims_string(plan.dims));
    }
    plan.out_strides = contiguous_strides(plan.dims);
    r.set_dims(out, plan.dims);
    write_plan(r, copy, plan);
  });
}

void check_cat(const OpArgs& args) {
  args.expect_count(3);
  const ValueList& list = args.value_list(0);
  if (list.items.empty()) args.fail(0, "expected at least one tensor");
  check_copyable(args, 2);
  const Dims& out = args.tensor(2).max_dims;
  const auto d = normalize_dim(args.integer(1), out.size());
  if (!d) args.fail(1, "dim out of range for rank " + std::to_string(out.size()));
}

void lower_cat(OpContext& ctx) {
  const ValueId out = ctx.arg(2);
  const size_t d = *normalize_dim(ctx.args().integer(1), ctx.max_dims(out).size());
  std::vector<ValueId> inputs;
  std::vector<StridedCopy> copies;
  int64_t total = 0;
  for (ValueId id : ctx.args().value_list(0).items) {
    if (!ctx.graph().is_tensor(id)) ctx.args().fail(0, "item " + std::to_string(id) + " is not a tensor");
    const Dims& m = ctx.max_dims(id);
    Dims want = ctx.max_dims(out);
    want[d] = m.size() == want.size() ? m[d] : -1;
    if (m != want || ctx.tensor_info(id).dtype != ctx.tensor_info(out).dtype) {
      ctx.args().fail(0, "tensor " + dims_string(m) + " does not concatenate into " + dims_string(ctx.max_dims(out)) +
                             " along dim " + std::to_string(d));
    }
    total += m[d];
    inputs.push_back(id);
    copies.push_back(record_strided_copy(ctx, id, out));
  }
  if (total != ctx.max_dims(out)[d]) ctx.args().fail(2, "output dim " + std::to_string(d) + " is not the sum of inputs'");
  ctx.on_resize(inputs, [=](ResizeContext& r) {
    Dims dims = r.dims(inputs[0]);
    dims[d] = 0;
    for (ValueId id : inputs) dims[d] += r.dims(id)[d];
    r.set_dims(out, dims);
    const auto out_strides = contiguous_strides(dims);
    int64_t offset = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      CopyPlan plan;
      plan.dims = r.dims(inputs[i]);
      plan.in_strides = contiguous_strides(plan.dims);
      plan.out_strides = out_strides;
      plan.out_base = offset * out_strides[d];
      offset += plan.dims[d];
      write_plan(r, copies[i], plan);
    }
  });
}

}  // namespace

void register_layout_ops(OpRegistry& registry) {
  registry.add("aten.permute_copy.default", {check_permute, lower_permute});
  registry.add("aten.permute.default", {check_permute, lower_permute});
  registry.add("aten.expand_copy.default", {check_expand, lower_expand});
  registry.add("aten.cat.default", {check_cat, lower_cat});
}

}  // namespace wgrt::ops
