// Ops that reorder or replicate elements: aten.permute_copy.default and
// aten.permute.default (self, dims, out), aten.t_copy.default (self, out),
// aten.expand_copy.default (self, size, implicit, out), aten.cat.default
// (tensors, dim, out), aten.flip.default (self, dims, out) and
// aten.repeat.default (self, repeats, out), aten.pixel_shuffle.default (self,
// upscale_factor, out), aten.unfold_copy.default (self, dimension, size,
// step, out). Each is a strided copy
// (strided_copy.wgsl) planned from live shapes.
#include <algorithm>

#include "ops/common/shapes.h"
#include "ops/register_ops.h"
#include "ops/common/size_list.h"
#include "ops/shape/strided_copy.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

void check_copyable(const OpArgs& args, size_t i) {
  const Tensor& t = args.tensor(i);
  if (!copyable(t.dtype)) args.fail(i, "expected f32, i32, i64, bool, i8 or u8, got " + std::string(dtype_name(t.dtype)));
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

void lower_permutation(OpContext& ctx, ValueId in, ValueId out, std::vector<size_t> perm);

void lower_permute(OpContext& ctx) { lower_permutation(ctx, ctx.arg(0), ctx.arg(2), permutation(ctx.args())); }

// t_copy: a 2D transpose; 0D and 1D tensors pass unchanged.
std::vector<size_t> transpose_perm(size_t rank) { return rank == 2 ? std::vector<size_t>{1, 0} : std::vector<size_t>(rank, 0); }

void check_t(const OpArgs& args) {
  args.expect_count(2);
  check_copyable(args, 0);
  args.expect_same_dtype(0, 1);
  Dims want = args.tensor(0).max_dims;
  if (want.size() > 2) args.fail(0, "expected at most 2 dims, got " + dims_string(want));
  std::reverse(want.begin(), want.end());
  if (args.tensor(1).max_dims != want) args.fail(1, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(1).max_dims));
}

void lower_t(OpContext& ctx) {
  const size_t rank = ctx.max_dims(ctx.arg(0)).size();
  std::vector<size_t> perm = transpose_perm(rank);
  if (rank == 1) perm = {0};
  lower_permutation(ctx, ctx.arg(0), ctx.arg(1), perm);
}

void lower_permutation(OpContext& ctx, ValueId in, ValueId out, std::vector<size_t> perm) {
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

// flip: walks the flipped dims backwards (negative strides; the copy's
// 32-bit index arithmetic wraps, so in_base plus them lands in range).
std::vector<bool> flipped_dims(const OpArgs& args) {
  const size_t rank = args.tensor(0).max_dims.size();
  std::vector<bool> flip(rank, false);
  for (int64_t d : args.int_list(1)) {
    const auto n = normalize_dim(d, rank);
    if (!n || flip[*n]) args.fail(1, "dims " + dims_string(args.int_list(1)) + " are not distinct dims of rank " + std::to_string(rank));
    flip[*n] = true;
  }
  return flip;
}

void check_flip(const OpArgs& args) {
  args.expect_count(3);
  check_copyable(args, 0);
  args.expect_same_dtype(0, 2);
  flipped_dims(args);
  if (args.tensor(2).max_dims != args.tensor(0).max_dims) args.fail(2, "expected shape " + dims_string(args.tensor(0).max_dims));
}

void lower_flip(OpContext& ctx) {
  const ValueId in = ctx.arg(0), out = ctx.arg(2);
  const auto flip = flipped_dims(ctx.args());
  const StridedCopy copy = record_strided_copy(ctx, in, out);
  ctx.on_resize({in}, [=](ResizeContext& r) {
    const Dims& dims = r.dims(in);
    CopyPlan plan;
    plan.dims = dims;
    plan.in_strides = contiguous_strides(dims);
    plan.out_strides = plan.in_strides;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (!flip[d]) continue;
      plan.in_base += (dims[d] - 1) * plan.in_strides[d];
      plan.in_strides[d] = -plan.in_strides[d];
    }
    r.set_dims(out, dims);
    write_plan(r, copy, plan);
  });
}

// repeat: output dim i is repeats[i] copies of input dim i (input padded with
// leading ones), i.e. the copy of a [r0, d0, r1, d1, ...] view whose repeat
// dims have input stride 0; that view's row-major order is the output's.
Dims repeat_dims(const Dims& in, const IntList& repeats) {
  Dims out(repeats.size());
  const size_t lead = repeats.size() - in.size();
  for (size_t i = 0; i < repeats.size(); ++i) out[i] = repeats[i] * (i < lead ? 1 : in[i - lead]);
  return out;
}

void check_repeat(const OpArgs& args) {
  args.expect_count(3);
  check_copyable(args, 0);
  args.expect_same_dtype(0, 2);
  const IntList& repeats = args.int_list(1);
  const Dims& in = args.tensor(0).max_dims;
  if (repeats.size() < in.size()) args.fail(1, "fewer repeats than the input's " + std::to_string(in.size()) + " dims");
  if (2 * repeats.size() > kMaxCopyRank) args.fail(1, "more than " + std::to_string(kMaxCopyRank / 2) + " dims");
  for (int64_t r : repeats) {
    if (r < 1) args.fail(1, "repeat " + std::to_string(r) + " is below 1");
  }
  const Dims want = repeat_dims(in, repeats);
  if (args.tensor(2).max_dims != want) args.fail(2, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(2).max_dims));
}

void lower_repeat(OpContext& ctx) {
  const ValueId in = ctx.arg(0), out = ctx.arg(2);
  const IntList repeats = ctx.args().int_list(1);
  const StridedCopy copy = record_strided_copy(ctx, in, out);
  ctx.on_resize({in}, [=](ResizeContext& r) {
    const Dims& dims = r.dims(in);
    const size_t lead = repeats.size() - dims.size();
    const auto strides = contiguous_strides(dims);
    CopyPlan plan;
    for (size_t i = 0; i < repeats.size(); ++i) {
      plan.dims.push_back(repeats[i]);
      plan.in_strides.push_back(0);
      plan.dims.push_back(i < lead ? 1 : dims[i - lead]);
      plan.in_strides.push_back(i < lead ? 0 : strides[i - lead]);
    }
    plan.out_strides = contiguous_strides(plan.dims);
    r.set_dims(out, repeat_dims(dims, repeats));
    write_plan(r, copy, plan);
  });
}

// pixel_shuffle: out[.., c, h * r + i, w * r + j] = in[.., c * r * r + i * r + j, h, w],
// a copy over [lead, C, H, r, W, r] whose row-major order is the output's.
void check_pixel_shuffle(const OpArgs& args) {
  args.expect_count(3);
  check_copyable(args, 0);
  args.expect_same_dtype(0, 2);
  const Dims& in = args.tensor(0).max_dims;
  const int64_t r = args.integer(1);
  if (in.size() < 3 || in.size() > 4) args.fail(0, "expected [C, H, W] or [N, C, H, W], got " + dims_string(in));
  if (r < 1 || in[in.size() - 3] % (r * r) != 0) {
    args.fail(1, "upscale_factor " + std::to_string(r) + " does not divide " + std::to_string(in[in.size() - 3]) + " channels by its square");
  }
  Dims want = in;
  want[in.size() - 3] /= r * r;
  want[in.size() - 2] *= r;
  want[in.size() - 1] *= r;
  if (args.tensor(2).max_dims != want) args.fail(2, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(2).max_dims));
}

void lower_pixel_shuffle(OpContext& ctx) {
  const ValueId in = ctx.arg(0), out = ctx.arg(2);
  const int64_t f = ctx.args().integer(1);
  const StridedCopy copy = record_strided_copy(ctx, in, out);
  ctx.on_resize({in}, [=](ResizeContext& r) {
    const Dims& d = r.dims(in);
    const size_t k = d.size();
    const int64_t c = d[k - 3] / (f * f), h = d[k - 2], w = d[k - 1];
    const int64_t lead = k == 4 ? d[0] : 1;
    CopyPlan plan;
    plan.dims = {lead, c, h, f, w, f};
    plan.in_strides = {d[k - 3] * h * w, f * f * h * w, w, f * h * w, 1, h * w};
    plan.out_strides = contiguous_strides(plan.dims);
    Dims od = d;
    od[k - 3] = c, od[k - 2] = h * f, od[k - 1] = w * f;
    r.set_dims(out, od);
    write_plan(r, copy, plan);
  });
}

// unfold: windows of `size` every `step` along one dim, the window as a new
// last dim: out[.., w, .., k] = in[.., w * step + k, ..].
Dims unfold_dims(Dims dims, size_t dim, int64_t size, int64_t step) {
  dims[dim] = dims[dim] < size ? 0 : (dims[dim] - size) / step + 1;
  dims.push_back(size);
  return dims;
}

size_t check_unfold(const OpArgs& args) {
  args.expect_count(5);
  check_copyable(args, 0);
  args.expect_same_dtype(0, 4);
  const Dims& in = args.tensor(0).max_dims;
  if (in.size() + 1 > kMaxCopyRank) args.fail(0, "rank above " + std::to_string(kMaxCopyRank - 1));
  const auto dim = normalize_dim(args.integer(1), std::max<size_t>(in.size(), 1));
  if (!dim) args.fail(1, "dimension " + std::to_string(args.integer(1)) + " is out of range");
  const int64_t size = args.integer(2), step = args.integer(3);
  if (size < 0 || (!in.empty() && size > in[*dim])) args.fail(2, "size " + std::to_string(size) + " does not fit " + dims_string(in));
  if (step < 1) args.fail(3, "step " + std::to_string(step) + " is below 1");
  const Dims want = unfold_dims(in, *dim, size, step);
  if (args.tensor(4).max_dims != want) args.fail(4, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(4).max_dims));
  return *dim;
}

void lower_unfold(OpContext& ctx) {
  const size_t dim = check_unfold(ctx.args());
  const int64_t size = ctx.args().integer(2), step = ctx.args().integer(3);
  const ValueId in = ctx.arg(0), out = ctx.arg(4);
  const StridedCopy copy = record_strided_copy(ctx, in, out);
  ctx.on_resize({in}, [=](ResizeContext& r) {
    CopyPlan plan;
    plan.dims = unfold_dims(r.dims(in), dim, size, step);
    plan.in_strides = contiguous_strides(r.dims(in));
    plan.in_strides.push_back(plan.in_strides[dim]);
    plan.in_strides[dim] *= step;
    plan.out_strides = contiguous_strides(plan.dims);
    r.set_dims(out, plan.dims);
    write_plan(r, copy, plan);
  });
}

}  // namespace

void register_layout_ops(OpRegistry& registry) {
  registry.add("aten.permute_copy.default", {check_permute, lower_permute});
  registry.add("aten.permute.default", {check_permute, lower_permute});
  registry.add("aten.expand_copy.default", {check_expand, lower_expand});
  registry.add("aten.cat.default", {check_cat, lower_cat});
  registry.add("aten.t_copy.default", {check_t, lower_t});
  registry.add("aten.flip.default", {check_flip, lower_flip});
  registry.add("aten.repeat.default", {check_repeat, lower_repeat});
  registry.add("aten.pixel_shuffle.default", {check_pixel_shuffle, lower_pixel_shuffle});
  registry.add("aten.unfold_copy.default", {[](const OpArgs& a) { check_unfold(a); }, lower_unfold});
}

}  // namespace wgrt::ops
