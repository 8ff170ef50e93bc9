// aten.slice_copy.Tensor (self, dim, start, end, step, out) and
// aten.select_copy.int (self, dim, index, out). start, end and index may be
// SymInts (the RoPE-freqs slice [input_pos : input_pos + S]); bounds are
// resolved against the live input shape in every hook, as torch does.
#include <algorithm>

#include "ops/common/shapes.h"
#include "ops/register_ops.h"
#include "ops/shape/strided_copy.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

void check_int_or_null(const OpArgs& args, size_t i) {
  if (!args.is_null(i)) args.integer(i);
}

size_t dim_arg(const OpArgs& args, size_t rank) {
  const auto d = normalize_dim(args.integer(1), rank);
  if (!d) args.fail(1, "dim " + std::to_string(args.integer(1)) + " out of range for rank " + std::to_string(rank));
  return *d;
}

void check_in_out(const OpArgs& args, size_t out) {
  const Tensor& in = args.tensor(0);
  if (!copyable(in.dtype)) args.fail(0, "expected f32, i32, i64, bool, i8 or u8, got " + std::string(dtype_name(in.dtype)));
  args.expect_same_dtype(0, out);
  if (in.max_dims.size() > kMaxCopyRank) args.fail(0, "rank above " + std::to_string(kMaxCopyRank));
}

// torch's clamping of a slice [start, end) with step over a dim of `size`.
struct SliceRange {
  int64_t start = 0;
  int64_t length = 0;
};

SliceRange clamp_slice(std::optional<int64_t> start, std::optional<int64_t> end, int64_t step, int64_t size) {
  int64_t s = start.value_or(0), e = end.value_or(size);
  if (s < 0) s += size;
  if (e < 0) e += size;
  s = std::clamp<int64_t>(s, 0, size);
  e = std::clamp<int64_t>(e, s, size);
  return {s, (e - s + step - 1) / step};
}

void check_slice(const OpArgs& args) {
  args.expect_count(6);
  check_in_out(args, 5);
  const Dims& in = args.tensor(0).max_dims;
  const size_t d = dim_arg(args, in.size());
  check_int_or_null(args, 2);
  check_int_or_null(args, 3);
  if (args.integer(4) < 1) args.fail(4, "expected a step >= 1, got " + std::to_string(args.integer(4)));
  Dims want = in;
  const Dims& out = args.tensor(5).max_dims;
  want[d] = out.size() == in.size() ? out[d] : -1;
  if (out != want || out[d] > in[d]) {
    args.fail(5, "expected shape " + dims_string(in) + " with at most " + std::to_string(in[d]) + " in dim " +
                     std::to_string(d) + ", got " + dims_string(out));
  }
}

void lower_slice(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId in = ctx.arg(0), start = ctx.arg(2), end = ctx.arg(3), out = ctx.arg(5);
  const size_t d = dim_arg(args, ctx.max_dims(in).size());
  const int64_t step = args.integer(4);
  const bool has_start = !args.is_null(2), has_end = !args.is_null(3);
  const StridedCopy copy = record_strided_copy(ctx, in, out);
  ctx.on_resize({in, start, end}, [=](ResizeContext& r) {
    const Dims& live = r.dims(in);
    const SliceRange range =
        clamp_slice(has_start ? std::optional(r.integer(start)) : std::nullopt,
                    has_end ? std::optional(r.integer(end)) : std::nullopt, step, live[d]);
    Dims dims = live;
    dims[d] = range.length;
    r.set_dims(out, dims);
    CopyPlan plan;
    plan.dims = dims;
    plan.in_strides = contiguous_strides(live);
    plan.out_strides = contiguous_strides(dims);
    plan.in_base = range.start * plan.in_strides[d];
    plan.in_strides[d] *= step;
    write_plan(r, copy, plan);
  });
}

void check_select(const OpArgs& args) {
  args.expect_count(4);
  check_in_out(args, 3);
  Dims want = args.tensor(0).max_dims;
  want.erase(want.begin() + dim_arg(args, want.size()));
  args.integer(2);
  if (args.tensor(3).max_dims != want) {
    args.fail(3, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(3).max_dims));
  }
}

void lower_select(OpContext& ctx) {
  const ValueId in = ctx.arg(0), index = ctx.arg(2), out = ctx.arg(3);
  const size_t d = dim_arg(ctx.args(), ctx.max_dims(in).size());
  const StridedCopy copy = record_strided_copy(ctx, in, out);
  ctx.on_resize({in, index}, [=](ResizeContext& r) {
    const Dims& live = r.dims(in);
    int64_t i = r.integer(index);
    if (i < 0) i += live[d];  // negative: from the live end, each run
    if (i < 0 || i >= live[d]) {
      throw Error(ErrorCode::InvalidArgument, "select_copy: index " + std::to_string(r.integer(index)) +
                                                  " out of range for live dim " + std::to_string(d) + " of " +
                                                  dims_string(live));
    }
    const auto strides = contiguous_strides(live);
    CopyPlan plan;
    for (size_t k = 0; k < live.size(); ++k) {
      if (k == d) continue;
      plan.dims.push_back(live[k]);
      plan.in_strides.push_back(strides[k]);
    }
    plan.out_strides = contiguous_strides(plan.dims);
    plan.in_base = i * strides[d];
    r.set_dims(out, plan.dims);
    write_plan(r, copy, plan);
  });
}

}  // namespace

void register_slice_select(OpRegistry& registry) {
  registry.add("aten.slice_copy.Tensor", {check_slice, lower_slice});
  registry.add("aten.select_copy.int", {check_select, lower_select});
}

}  // namespace wgrt::ops
