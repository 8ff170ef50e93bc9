// Boolean masks (mask.wgsl): aten.eq.Scalar, aten.logical_not, aten.where.self
// and aten.full_like, the ops a stock nn.TransformerEncoder's attention mask
// is built from when VulkanPartitioner lowers it.
#include <bit>
#include <cmath>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/shapes.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;
constexpr size_t kMaxRank = 8;
constexpr uint32_t kMatchNothing = 0xffffffffu;  // a NaN scalar: equal to nothing

// Mirrors `Params` in mask.wgsl.
struct MaskParams {
  uint32_t count = 0;
  uint32_t numel = 0;
  uint32_t rank = 0;
  uint32_t value = 0;
  uint32_t out_dims[8] = {};
  uint32_t c_strides[8] = {};
  uint32_t a_strides[8] = {};
  uint32_t b_strides[8] = {};
};
static_assert(sizeof(MaskParams) == 144, "must match Params in mask.wgsl");

void check_same_shape(const OpArgs& args, size_t out_index, const Tensor& in, const Tensor& out) {
  if (out.max_dims != in.max_dims) {
    args.fail(out_index, "expected shape " + dims_string(in.max_dims) + ", got " + dims_string(out.max_dims));
  }
}

// eq.Scalar (x, scalar, out) and logical_not (x, out): one bool word per invocation.
void lower_bool_words(OpContext& ctx, const char* entry, ValueId x, ValueId out, uint32_t value) {
  const auto& pipeline = ctx.pipeline("elementwise/mask.wgsl", entry, {{"WG", kWorkgroup}});
  const UniformId u = ctx.uniform(sizeof(MaskParams));
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({x}, [=](ResizeContext& r) {
    r.set_dims(out, r.dims(x));
    MaskParams p;
    p.numel = static_cast<uint32_t>(numel(r.dims(x)));
    p.count = static_cast<uint32_t>(gpu::div_up(p.numel, 4));
    p.value = value;
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.count, kWorkgroup)));
  });
}

void check_eq_scalar(const OpArgs& args) {
  args.expect_count(3);
  const Tensor& x = args.tensor(0, {DType::F32});
  args.number(1);
  check_same_shape(args, 2, x, args.tensor(2, {DType::Bool}));
}

void lower_eq_scalar(OpContext& ctx) {
  const double s = ctx.args().number(1);
  const uint32_t bits = std::isnan(s) ? kMatchNothing : std::bit_cast<uint32_t>(static_cast<float>(s));
  lower_bool_words(ctx, "main_eq_scalar", ctx.arg(0), ctx.arg(2), bits);
}

void check_logical_not(const OpArgs& args) {
  args.expect_count(2);
  check_same_shape(args, 1, args.tensor(0, {DType::Bool}), args.tensor(1, {DType::Bool}));
}

void lower_logical_not(OpContext& ctx) { lower_bool_words(ctx, "main_logical_not", ctx.arg(0), ctx.arg(1), 0); }

// where.self (condition, self, other, out): numpy broadcasting of all three.
void check_where(const OpArgs& args) {
  args.expect_count(4);
  const Tensor& c = args.tensor(0, {DType::Bool});
  const Tensor& a = args.tensor(1, {DType::F32});
  const Tensor& b = args.tensor(2, {DType::F32});
  const Tensor& out = args.tensor(3, {DType::F32});
  const auto ab = broadcast_shapes(a.max_dims, b.max_dims);
  const auto shape = ab ? broadcast_shapes(c.max_dims, *ab) : std::nullopt;
  if (!shape) args.fail(0, "shapes do not broadcast together");
  if (shape->size() > kMaxRank) args.fail(3, "rank above " + std::to_string(kMaxRank));
  if (*shape != out.max_dims) args.fail(3, "expected shape " + dims_string(*shape) + ", got " + dims_string(out.max_dims));
}

void lower_where(OpContext& ctx) {
  const ValueId c = ctx.arg(0), a = ctx.arg(1), b = ctx.arg(2), out = ctx.arg(3);
  const auto& pipeline = ctx.pipeline("elementwise/mask.wgsl", "main_where", {{"WG", kWorkgroup}});
  const UniformId u = ctx.uniform(sizeof(MaskParams));
  const DispatchId d =
      ctx.dispatch(pipeline, {ctx.tensor(c), ctx.tensor(a), ctx.tensor(b), ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({c, a, b}, [=](ResizeContext& r) {
    const auto ab = broadcast_shapes(r.dims(a), r.dims(b));
    const auto shape = ab ? broadcast_shapes(r.dims(c), *ab) : std::nullopt;
    if (!shape) {
      throw Error(ErrorCode::InvalidArgument, "where: live shapes " + dims_string(r.dims(c)) + ", " +
                                                  dims_string(r.dims(a)) + " and " + dims_string(r.dims(b)) +
                                                  " do not broadcast");
    }
    r.set_dims(out, *shape);
    MaskParams p;
    p.numel = p.count = static_cast<uint32_t>(numel(*shape));
    p.rank = static_cast<uint32_t>(shape->size());
    const auto sc = broadcast_strides(r.dims(c), *shape), sa = broadcast_strides(r.dims(a), *shape),
               sb = broadcast_strides(r.dims(b), *shape);
    for (size_t i = 0; i < shape->size(); ++i) {
      p.out_dims[i] = static_cast<uint32_t>((*shape)[i]);
      p.c_strides[i] = sc[i];
      p.a_strides[i] = sa[i];
      p.b_strides[i] = sb[i];
    }
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.count, kWorkgroup)));
  });
}

// full_like (self, fill_value, dtype, layout, device, pin_memory, memory_format, out):
// an f32 tensor of self's live shape holding fill_value.
void check_full_like(const OpArgs& args) {
  args.expect_count(8);
  const Tensor& self = args.tensor(0);
  args.number(1);
  check_same_shape(args, 7, self, args.tensor(7, {DType::F32}));
}

void lower_full_like(OpContext& ctx) {
  const ValueId self = ctx.arg(0), out = ctx.arg(7);
  const uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(ctx.args().number(1)));
  const auto& pipeline = ctx.pipeline("elementwise/mask.wgsl", "main_fill", {{"WG", kWorkgroup}});
  const UniformId u = ctx.uniform(sizeof(MaskParams));
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({self}, [=](ResizeContext& r) {
    r.set_dims(out, r.dims(self));
    MaskParams p;
    p.numel = p.count = static_cast<uint32_t>(numel(r.dims(self)));
    p.value = bits;
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.count, kWorkgroup)));
  });
}

}  // namespace

void register_mask(OpRegistry& registry) {
  registry.add("aten.eq.Scalar", {check_eq_scalar, lower_eq_scalar});
  registry.add("aten.logical_not.default", {check_logical_not, lower_logical_not});
  registry.add("aten.where.self", {check_where, lower_where});
  registry.add("aten.full_like.default", {check_full_like, lower_full_like});
}

}  // namespace wgrt::ops
