// aten.constant_pad_nd.default (x, pad, value, out): pad holds (before,
// after) pairs for the last dims, innermost first; negative entries crop.
// Lowered to a fill of the output with `value` and a strided copy of the
// kept input region into it. Every dim may change at run time.
#include "ops/common/shapes.h"
#include "ops/creation/fill.h"
#include "ops/register_ops.h"
#include "ops/shape/strided_copy.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

Dims padded_dims(Dims dims, const IntList& pad) {
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    dims[dims.size() - 1 - i] += pad[2 * i] + pad[2 * i + 1];
  }
  return dims;
}

void check(const OpArgs& args) {
  args.expect_count(4);
  const Tensor& x = args.tensor(0);
  if (!copyable(x.dtype)) args.fail(0, "expected f32, i32, i64, bool, i8 or u8, got " + std::string(dtype_name(x.dtype)));
  args.expect_same_dtype(0, 3);
  if (x.max_dims.size() > kMaxCopyRank) args.fail(0, "rank above " + std::to_string(kMaxCopyRank));
  const IntList& pad = args.int_list(1);
  if (pad.size() % 2 != 0 || pad.size() / 2 > x.max_dims.size()) {
    args.fail(1, "pad " + dims_string(pad) + ": expected (before, after) pairs for at most " +
                     std::to_string(x.max_dims.size()) + " dims");
  }
  args.number(2);
  const Dims want = padded_dims(x.max_dims, pad);
  for (int64_t d : want) {
    if (d < 0) args.fail(1, "pad " + dims_string(pad) + " crops " + dims_string(x.max_dims) + " below zero");
  }
  if (args.tensor(3).max_dims != want) args.fail(3, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(3).max_dims));
}

void lower(OpContext& ctx) {
  const ValueId x = ctx.arg(0), out = ctx.arg(3);
  const IntList pad = ctx.args().int_list(1);
  const Fill fill = record_fill(ctx, out, ctx.args().number(2));
  const StridedCopy copy = record_strided_copy(ctx, x, out);
  ctx.on_resize({x}, [=](ResizeContext& r) {
    const Dims& in = r.dims(x);
    const Dims od = padded_dims(in, pad);
    r.set_dims(out, od);
    write_fill(r, fill, od);
    // The copied region: the input minus cropped edges, placed after the padding.
    const auto in_strides = contiguous_strides(in), out_strides = contiguous_strides(od);
    CopyPlan plan;
    plan.dims = in;
    plan.in_strides = in_strides;
    plan.out_strides = out_strides;
    for (size_t i = 0; i < pad.size() / 2; ++i) {
      const size_t d = in.size() - 1 - i;
      const int64_t before = pad[2 * i], after = pad[2 * i + 1];
      plan.dims[d] = std::max<int64_t>(0, in[d] + std::min<int64_t>(before, 0) + std::min<int64_t>(after, 0));
      plan.in_base += std::max<int64_t>(-before, 0) * in_strides[d];
      plan.out_base += std::max<int64_t>(before, 0) * out_strides[d];
    }
    write_plan(r, copy, plan);
  });
}

}  // namespace

void register_pad(OpRegistry& registry) { registry.add("aten.constant_pad_nd.default", {check, lower}); }

}  // namespace wgrt::ops
