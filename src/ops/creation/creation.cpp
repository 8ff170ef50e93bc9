// Tensors made from nothing but arguments, on fill.wgsl:
//   aten.full.default (size, value, dtype, layout, device, pin_memory, out)
//   aten.zeros.default / aten.ones.default (size, dtype, layout, device, pin_memory, out)
//   aten.full_like.default (self, value, dtype, layout, device, pin_memory, memory_format, out)
//   aten.zeros_like.default / aten.ones_like.default (self, dtype, ..., memory_format, out)
//   aten.scalar_tensor.default (value, dtype, layout, device, pin_memory, out)
//   aten.arange.start_step (start, end, step, dtype, layout, device, pin_memory, out)
//   et_vk.grid_priors.default (x [..., H, W], stride, offset, out [H * W, 2] f32)
// The output's dtype (f32, i32, i64 or bool) is the graph's. The *_like ops
// follow their input's live shape; a size list may hold SymInts.
#include <array>
#include <cmath>
#include <vector>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/creation/fill.h"
#include "ops/register_ops.h"
#include "ops/common/size_list.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

enum class Shape { Sizes, Like, Scalar };

struct CreationDef {
  const char* name;
  Shape shape;
  int value_arg;   // -1: the fixed value below
  double value;
  size_t out_arg;
};

constexpr CreationDef kOps[] = {
    {"aten.full.default", Shape::Sizes, 1, 0, 6},      {"aten.zeros.default", Shape::Sizes, -1, 0, 5},
    {"aten.ones.default", Shape::Sizes, -1, 1, 5},     {"aten.full_like.default", Shape::Like, 1, 0, 7},
    {"aten.zeros_like.default", Shape::Like, -1, 0, 6}, {"aten.ones_like.default", Shape::Like, -1, 1, 6},
    {"aten.scalar_tensor.default", Shape::Scalar, 0, 0, 5},
};

const Tensor& check_out(const OpArgs& args, size_t i) {
  const Tensor& out = args.tensor(i);
  if (!fillable(out.dtype)) args.fail(i, "dtype " + std::string(dtype_name(out.dtype)) + " cannot be filled");
  return out;
}

void check(const CreationDef& def, const OpArgs& args) {
  args.expect_count(def.out_arg + 1);
  if (def.value_arg >= 0) args.number(size_t(def.value_arg));
  const Tensor& out = check_out(args, def.out_arg);
  if (def.shape == Shape::Sizes) SizeList::check(args, 0);
  if (def.shape == Shape::Like && args.tensor(0).max_dims != out.max_dims) {
    args.fail(def.out_arg, "expected shape " + dims_string(args.tensor(0).max_dims) + ", got " + dims_string(out.max_dims));
  }
  if (def.shape == Shape::Scalar && numel(out.max_dims) != 1) args.fail(def.out_arg, "expected one element");
}

void lower(const CreationDef& def, OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId out = ctx.arg(def.out_arg);
  const Fill fill = record_fill(ctx, out, def.value_arg >= 0 ? args.number(size_t(def.value_arg)) : def.value);
  if (def.shape == Shape::Like) {
    const ValueId in = ctx.arg(0);
    ctx.on_resize({in}, [=](ResizeContext& r) {
      r.set_dims(out, r.dims(in));
      write_fill(r, fill, r.dims(in));
    });
  } else if (def.shape == Shape::Sizes) {
    const SizeList sizes = SizeList::read(ctx, 0);
    ctx.on_resize(sizes.symints(), [=](ResizeContext& r) {
      const Dims dims = sizes.resolve(r);
      r.set_dims(out, dims);
      write_fill(r, fill, dims);
    });
  } else {
    ctx.on_resize({}, [=](ResizeContext& r) { write_fill(r, fill, r.max_dims(out)); });
  }
}

// --- arange ----------------------------------------------------------------------

int64_t arange_count(double start, double end, double step) {
  return std::max<int64_t>(0, static_cast<int64_t>(std::ceil((end - start) / step)));
}

// A bound of arange: a number, or a SymInt (a dynamic sequence length, as
// exported models build positions) read from the live shapes.
double arange_bound(const OpArgs& args, size_t i) {
  return args.is_symint(i) ? double(args.integer(i)) : args.number(i);
}

void check_arange(const OpArgs& args) {
  args.expect_count(8);
  const double start = arange_bound(args, 0), end = arange_bound(args, 1), step = arange_bound(args, 2);
  if (step == 0) args.fail(2, "step 0");
  const Tensor& out = args.tensor(7, {DType::F32, DType::I32, DType::I64});
  const Dims want = {arange_count(start, end, step)};
  const bool symbolic = args.is_symint(0) || args.is_symint(1) || args.is_symint(2);
  // With a SymInt bound the output is built at its maximum length, and the
  // live length follows the SymInt (up to that maximum).
  if (symbolic ? out.max_dims.size() != 1 : out.max_dims != want) {
    args.fail(7, "expected shape " + (symbolic ? std::string("[max length]") : dims_string(want)) + ", got " +
                     dims_string(out.max_dims));
  }
}

void lower_arange(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId out = ctx.arg(7);
  const bool int_out = ctx.tensor_info(out).dtype != DType::F32;
  const int64_t max_count = ctx.max_dims(out)[0];
  // Per bound: a constant, or the SymInt to read at each run.
  struct Bound {
    double value = 0;
    ValueId symint = 0;
    bool symbolic = false;
  };
  std::array<Bound, 3> bounds;
  std::vector<ValueId> deps;
  for (size_t i = 0; i < 3; ++i) {
    bounds[i].symbolic = args.is_symint(i);
    if (bounds[i].symbolic) {
      bounds[i].symint = ctx.arg(i);
      deps.push_back(ctx.arg(i));
    } else {
      bounds[i].value = args.number(i);
    }
  }
  const UniformId u = ctx.uniform(sizeof(FillParams));
  const DispatchId d = ctx.dispatch(ctx.pipeline("creation/fill.wgsl", "main", {{"WG", kFillWorkgroup}, {"MODE", 1}, {"INT_OUT", int_out ? 1 : 0}}),
                                    {ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize(deps, [=](ResizeContext& r) {
    double v[3];
    for (size_t i = 0; i < 3; ++i) v[i] = bounds[i].symbolic ? double(r.integer(bounds[i].symint)) : bounds[i].value;
    if (v[2] == 0) throw Error(ErrorCode::InvalidArgument, "aten.arange: argument 2 (step) is 0");
    const int64_t count = arange_count(v[0], v[1], v[2]);
    if (count > max_count) {
      throw Error(ErrorCode::InvalidArgument,
                  "aten.arange: start " + std::to_string(v[0]) + ", end " + std::to_string(v[1]) + ", step " +
                      std::to_string(v[2]) + " give " + std::to_string(count) + " elements, above the " +
                      std::to_string(max_count) + " the graph was built for");
    }
    r.set_dims(out, {count});
    FillParams p;
    p.start = static_cast<float>(v[0]);
    p.step = static_cast<float>(v[2]);
    p.words = static_cast<uint32_t>(count);
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.words, kFillWorkgroup)));
  });
}

void check_grid_priors(const OpArgs& args) {
  args.expect_count(4);
  const Tensor& x = args.tensor(0);
  args.expect_rank_at_least(0, 2);
  args.number(1);
  args.number(2);
  const Dims want = {x.max_dims[x.max_dims.size() - 2] * x.max_dims.back(), 2};
  if (args.tensor(3, {DType::F32}).max_dims != want) {
    args.fail(3, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(3).max_dims));
  }
}

void lower_grid_priors(OpContext& ctx) {
  const ValueId x = ctx.arg(0), out = ctx.arg(3);
  const float stride = static_cast<float>(ctx.args().number(1)), offset = static_cast<float>(ctx.args().number(2));
  const UniformId u = ctx.uniform(sizeof(FillParams));
  const DispatchId d = ctx.dispatch(ctx.pipeline("creation/fill.wgsl", "main", {{"WG", kFillWorkgroup}, {"MODE", 2}}),
                                    {ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({x}, [=](ResizeContext& r) {
    const Dims& xd = r.dims(x);
    const int64_t h = xd[xd.size() - 2], w = xd.back();
    r.set_dims(out, {h * w, 2});
    FillParams p;
    p.words = static_cast<uint32_t>(h * w * 2);
    p.bits = static_cast<uint32_t>(w);
    p.start = offset;
    p.step = stride;
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.words, kFillWorkgroup)));
  });
}

}  // namespace

void register_creation(OpRegistry& registry) {
  for (const CreationDef& def : kOps) {
    registry.add(def.name, {[&def](const OpArgs& a) { check(def, a); }, [&def](OpContext& c) { lower(def, c); }, false, nullptr,
                            "f32, i32, i64, bool"});
  }
  registry.add("aten.arange.start_step", {check_arange, lower_arange, false, nullptr, "f32, i32, i64"});
  registry.add("et_vk.grid_priors.default", {check_grid_priors, lower_grid_priors, false, nullptr, "any input -> f32"});
}

}  // namespace wgrt::ops
