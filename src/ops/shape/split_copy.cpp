// aten.split_with_sizes_copy.default (self, split_sizes, dim, ValueList[outs]):
// cat's inverse, one strided copy per output reading a block of `dim` at an
// offset input base. The split dim keeps its sizes; other dims follow the
// live input.
#include <numeric>

#include "ops/common/shapes.h"
#include "ops/register_ops.h"
#include "ops/shape/strided_copy.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

size_t split_dim(const OpArgs& args) {
  const size_t rank = args.tensor(0).max_dims.size();
  const auto d = normalize_dim(args.integer(2), rank);
  if (!d) args.fail(2, "dim " + std::to_string(args.integer(2)) + " out of range for rank " + std::to_string(rank));
  return *d;
}

void check_split(const OpArgs& args) {
  args.expect_count(4);
  const Tensor& in = args.tensor(0);
  if (!copyable(in.dtype)) args.fail(0, "expected f32, i32, i64, bool, i8 or u8, got " + std::string(dtype_name(in.dtype)));
  if (in.max_dims.size() > kMaxCopyRank) args.fail(0, "rank above " + std::to_string(kMaxCopyRank));
  const size_t d = split_dim(args);
  const IntList& sizes = args.int_list(1);
  for (int64_t s : sizes) {
    if (s < 0) args.fail(1, "negative split size " + std::to_string(s));
  }
  if (std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != in.max_dims[d]) {
    args.fail(1, "split sizes " + dims_string(sizes) + " do not sum to dim " + std::to_string(d) + " of " +
                     dims_string(in.max_dims));
  }
  if (args.value_list(3).items.size() != sizes.size()) {
    args.fail(3, "expected " + std::to_string(sizes.size()) + " outputs, got " +
                     std::to_string(args.value_list(3).items.size()));
  }
}

void lower_split(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId in = ctx.arg(0);
  const size_t d = split_dim(args);
  const IntList sizes = args.int_list(1);
  const std::vector<ValueId> outs = args.value_list(3).items;
  std::vector<StridedCopy> copies;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!ctx.graph().is_tensor(outs[i])) args.fail(3, "item " + std::to_string(i) + " is not a tensor");
    Dims want = ctx.max_dims(in);
    want[d] = sizes[i];
    const Tensor& t = ctx.tensor_info(outs[i]);
    if (t.max_dims != want || t.dtype != ctx.tensor_info(in).dtype) {
      args.fail(3, "item " + std::to_string(i) + ": expected shape " + dims_string(want) + ", got " +
                       dims_string(t.max_dims));
    }
    copies.push_back(record_strided_copy(ctx, in, outs[i]));
  }
  ctx.on_resize({in}, [=](ResizeContext& r) {
    const Dims& live = r.dims(in);
    if (live[d] != r.max_dims(in)[d]) {
      throw Error(ErrorCode::InvalidArgument, "split_with_sizes_copy: live " + dims_string(live) +
                                                  " changes the split dim " + std::to_string(d));
    }
    const auto in_strides = contiguous_strides(live);
    int64_t offset = 0;
    for (size_t i = 0; i < outs.size(); ++i) {
      CopyPlan plan;
      plan.dims = live;
      plan.dims[d] = sizes[i];
      plan.in_strides = in_strides;
      plan.out_strides = contiguous_strides(plan.dims);
      plan.in_base = offset * in_strides[d];
      offset += sizes[i];
      r.set_dims(outs[i], plan.dims);
      write_plan(r, copies[i], plan);
    }
  });
}

}  // namespace

void register_split_copy(OpRegistry& registry) {
  registry.add("aten.split_with_sizes_copy.default", {check_split, lower_split});
}

}  // namespace wgrt::ops
