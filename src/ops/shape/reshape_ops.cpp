// Ops that keep the element order and only rename the shape, lowered to one
// flat copy of the live numel: aten.view_copy.default (self, size, out),
// aten.clone.default (self, memory_format, out), aten.unsqueeze_copy.default
// (self, dim, out), aten.squeeze_copy.{dims,dim,default}, and
// et_vk.prepack.default (const, out), which copies a constant into the
// tensor that later ops read.
#include <algorithm>
#include <optional>

#include "ops/common/shapes.h"
#include "ops/register_ops.h"
#include "ops/common/size_list.h"
#include "ops/shape/strided_copy.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

[[noreturn]] void bad_live(const std::string& what) { throw Error(ErrorCode::InvalidArgument, what); }

void check_copy_pair(const OpArgs& args, size_t in, size_t out) {
  const Tensor& t = args.tensor(in);
  if (!copyable(t.dtype)) args.fail(in, "expected f32, i32, i64, bool, i8 or u8, got " + std::string(dtype_name(t.dtype)));
  args.expect_same_dtype(in, out);
  if (t.max_dims.size() > kMaxCopyRank || args.tensor(out).max_dims.size() > kMaxCopyRank) {
    args.fail(out, "rank above " + std::to_string(kMaxCopyRank));
  }
}

void expect_numel(const OpArgs& args, size_t in, size_t out) {
  if (numel(args.tensor(in).max_dims) != numel(args.tensor(out).max_dims)) {
    args.fail(out, "expected " + std::to_string(numel(args.tensor(in).max_dims)) + " elements (as argument " +
                       std::to_string(in) + "), got shape " + dims_string(args.tensor(out).max_dims));
  }
}

// Records the flat copy and a hook setting out's live shape from `live_out`.
// When the planner put `out` in `in`'s buffer (a view), only the shape changes.
template <typename LiveOut>
void lower_flat(OpContext& ctx, ValueId in, ValueId out, std::vector<ValueId> deps, LiveOut live_out) {
  const bool in_place = ctx.same_buffer(in, out);
  std::optional<StridedCopy> copy;
  if (!in_place) copy = record_strided_copy(ctx, in, out);
  deps.insert(deps.begin(), in);
  ctx.on_resize(std::move(deps), [=](ResizeContext& r) {
    const Dims dims = live_out(r);
    if (numel(dims) != numel(r.dims(in))) {
      bad_live("view of " + dims_string(r.dims(in)) + " as " + dims_string(dims) + " changes the element count");
    }
    r.set_dims(out, dims);
    if (copy) write_plan(r, *copy, CopyPlan::flat(numel(dims)));
  });
}

// The output dim that follows the input's dynamic dim: the first input dim
// below its maximum, matched to the output dim of the same maximum (the same
// index preferred).
size_t dynamic_view_dim(const Dims& in_live, const Dims& in_max, const Dims& out_max) {
  for (size_t i = 0; i < in_live.size(); ++i) {
    if (in_live[i] == in_max[i]) continue;
    if (i < out_max.size() && out_max[i] == in_max[i]) return i;
    const auto it = std::find(out_max.begin(), out_max.end(), in_max[i]);
    if (it != out_max.end()) return static_cast<size_t>(it - out_max.begin());
  }
  bad_live("view of live shape " + dims_string(in_live) + " (max " + dims_string(in_max) +
           "): cannot tell which output dim of " + dims_string(out_max) + " is dynamic");
}

// Live view shape: -1 inferred; a list without -1 whose product misses the
// live numel (sizes fixed at the export's maximum) has its one dynamic dim
// scaled so that numel is preserved (seed 004).
Dims view_dims(std::vector<int64_t> sizes, const Dims& in_live, const Dims& in_max, const Dims& out_max) {
  const int64_t n = numel(in_live);
  std::optional<size_t> infer;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] != -1) continue;
    if (infer) bad_live("view size list has more than one -1");
    infer = i;
  }
  auto product_without = [&](std::optional<size_t> skip) {
    int64_t p = 1;
    for (size_t i = 0; i < sizes.size(); ++i) p *= (skip && i == *skip) ? 1 : sizes[i];
    return p;
  };
  if (!infer && product_without(std::nullopt) != n) infer = dynamic_view_dim(in_live, in_max, out_max);
  if (infer) {
    const int64_t known = product_without(infer);
    if (known == 0 || n % known != 0) {
      bad_live("cannot view " + std::to_string(n) + " elements with sizes " + dims_string(sizes));
    }
    sizes[*infer] = n / known;
  }
  return sizes;
}

void check_view(const OpArgs& args) {
  args.expect_count(3);
  SizeList::check(args, 1);
  check_copy_pair(args, 0, 2);
  expect_numel(args, 0, 2);
}

void lower_view(OpContext& ctx) {
  const ValueId in = ctx.arg(0), out = ctx.arg(2);
  const SizeList sizes = SizeList::read(ctx, 1);
  if (sizes.size() != ctx.max_dims(out).size()) {
    ctx.args().fail(1, "expected " + std::to_string(ctx.max_dims(out).size()) + " sizes (the output's rank), got " +
                           std::to_string(sizes.size()));
  }
  lower_flat(ctx, in, out, sizes.symints(), [=](const ResizeContext& r) {
    return view_dims(sizes.resolve(r), r.dims(in), r.max_dims(in), r.max_dims(out));
  });
}

// One-byte elements (int8 / uint8 weights of the quantized ops) are copied by
// whole-shape clones and prepacks as 32-bit words: the same bytes, the buffer
// padded to a word.
bool byte_elements(DType t) { return t == DType::I8 || t == DType::U8; }

// clone: (self, memory_format, out); prepack: (const, out).
void check_clone(const OpArgs& args, size_t count) {
  args.expect_count(count);
  const size_t out = count - 1;
  if (byte_elements(args.tensor(0).dtype)) {
    args.expect_same_dtype(0, out);
  } else {
    check_copy_pair(args, 0, out);
  }
  if (args.tensor(0).max_dims != args.tensor(out).max_dims) {
    args.fail(out, "expected shape " + dims_string(args.tensor(0).max_dims) + ", got " +
                       dims_string(args.tensor(out).max_dims));
  }
}

void lower_clone(OpContext& ctx) {
  const ValueId in = ctx.arg(0), out = ctx.arg(ctx.args().size() - 1);
  if (byte_elements(ctx.tensor_info(in).dtype)) {
    const bool in_place = ctx.same_buffer(in, out);
    std::optional<StridedCopy> copy;
    if (!in_place) copy = record_strided_copy(ctx, in, out, /*words=*/true);
    ctx.on_resize({in}, [=](ResizeContext& r) {
      r.set_dims(out, r.dims(in));
      if (copy) write_plan(r, *copy, CopyPlan::flat((numel(r.dims(in)) + 3) / 4));
    });
    return;
  }
  lower_flat(ctx, in, out, {}, [=](const ResizeContext& r) { return r.dims(in); });
}

size_t unsqueeze_position(const OpArgs& args) {
  const auto d = normalize_dim(args.integer(1), args.tensor(0).max_dims.size() + 1);
  if (!d) args.fail(1, "dim " + std::to_string(args.integer(1)) + " out of range");
  return *d;
}

void check_unsqueeze(const OpArgs& args) {
  args.expect_count(3);
  check_copy_pair(args, 0, 2);
  Dims want = args.tensor(0).max_dims;
  want.insert(want.begin() + unsqueeze_position(args), 1);
  if (args.tensor(2).max_dims != want) {
    args.fail(2, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(2).max_dims));
  }
}

void lower_unsqueeze(OpContext& ctx) {
  const ValueId in = ctx.arg(0), out = ctx.arg(2);
  const size_t pos = unsqueeze_position(ctx.args());
  lower_flat(ctx, in, out, {}, [=](const ResizeContext& r) {
    Dims d = r.dims(in);
    d.insert(d.begin() + pos, 1);
    return d;
  });
}

// Which input dims a squeeze removes, decided on the maximum shape (a dim of
// size 1 at its maximum): squeeze_copy.default (self, out), .dim (self, dim,
// out), .dims (self, dims, out).
std::vector<bool> squeezed(const OpArgs& args) {
  const Dims& max = args.tensor(0).max_dims;
  std::vector<bool> drop(max.size(), false);
  if (args.size() == 2) {
    for (size_t i = 0; i < max.size(); ++i) drop[i] = max[i] == 1;
    return drop;
  }
  std::vector<int64_t> dims;
  if (std::holds_alternative<IntList>(args.value(1))) {
    dims = args.int_list(1);
  } else {
    dims.push_back(args.integer(1));
  }
  for (int64_t d : dims) {
    const auto n = normalize_dim(d, max.size());
    if (!n) args.fail(1, "dim " + std::to_string(d) + " out of range");
    drop[*n] = max[*n] == 1;
  }
  return drop;
}

void check_squeeze(const OpArgs& args) {
  if (args.size() != 2) args.expect_count(3);
  const size_t out = args.size() - 1;
  check_copy_pair(args, 0, out);
  const auto drop = squeezed(args);
  Dims want;
  for (size_t i = 0; i < drop.size(); ++i) {
    if (!drop[i]) want.push_back(args.tensor(0).max_dims[i]);
  }
  if (args.tensor(out).max_dims != want) {
    args.fail(out, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(out).max_dims));
  }
}

void lower_squeeze(OpContext& ctx) {
  const ValueId in = ctx.arg(0), out = ctx.arg(ctx.args().size() - 1);
  const auto drop = squeezed(ctx.args());
  lower_flat(ctx, in, out, {}, [=](const ResizeContext& r) {
    Dims d;
    for (size_t i = 0; i < drop.size(); ++i) {
      if (!drop[i]) d.push_back(r.dims(in)[i]);
    }
    return d;
  });
}

}  // namespace

void register_reshape_ops(OpRegistry& registry) {
  registry.add("aten.view_copy.default", {check_view, lower_view, /*is_view=*/true});
  registry.add("aten.clone.default", {[](const OpArgs& a) { check_clone(a, 3); }, lower_clone});
  registry.add("et_vk.prepack.default", {[](const OpArgs& a) { check_clone(a, 2); }, lower_clone});
  registry.add("aten.unsqueeze_copy.default", {check_unsqueeze, lower_unsqueeze, /*is_view=*/true});
  for (const char* name : {"aten.squeeze_copy.dims", "aten.squeeze_copy.dim", "aten.squeeze_copy.default"}) {
    registry.add(name, {check_squeeze, lower_squeeze, /*is_view=*/true});
  }
}

}  // namespace wgrt::ops
