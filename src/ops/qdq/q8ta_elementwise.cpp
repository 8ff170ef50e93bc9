// The Vulkan backend's int8 elementwise ops (q8ta_elementwise.wgsl):
//   et_vk.q8ta_add.default           (a, b, a_scale, a_zp, b_scale, b_zp, out_scale, out_zp, alpha, out)
//   et_vk.q8ta_relu.default          (x, x_scale, x_zp, out_scale, out_zp, out)
//   et_vk.q8ta_pixel_shuffle.default (x, x_scale, x_zp, out_inv_scale, out_zp, upscale_factor, out)
// int8 tensors (q8ta_add: a and b of one shape); every dim may change at run time.
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/qparams.h"
#include "ops/register_ops.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;  // WG in qdq/q8ta_elementwise.wgsl

struct EwParams {
  uint32_t count = 0;
  int32_t a_zp = 0, b_zp = 0, out_zp = 0;
  float a_scale = 0, b_scale = 0, alpha = 1, out_inv_scale = 0;
  uint32_t oc = 0, oh = 0, ow = 0, r = 1;
};
static_assert(sizeof(EwParams) == 48, "must match Params in q8ta_elementwise.wgsl");

enum Op : uint32_t { kAdd = 0, kRelu = 1, kPixelShuffle = 2 };
constexpr IntRange kInt8 = {-128, 127};

size_t arg_count(Op op) { return op == kAdd ? 10 : op == kRelu ? 6 : 7; }

Dims out_dims(const OpArgs& args, Op op, const Dims& in) {
  if (op != kPixelShuffle) return in;
  const int64_t r = args.integer(5);
  return {in[0], in[1] / (r * r), in[2] * r, in[3] * r};
}

void check(const OpArgs& args, Op op) {
  args.expect_count(arg_count(op));
  const Tensor& a = args.tensor(0, {DType::I8});
  size_t next = 1;
  if (op == kAdd) {
    if (args.tensor(1, {DType::I8}).max_dims != a.max_dims) {
      args.fail(1, "expected shape " + dims_string(a.max_dims) + " (no broadcasting), got " +
                       dims_string(args.tensor(1).max_dims));
    }
    next = 2;
  }
  check_scale(args, next);
  check_zero_point(args, next + 1, kInt8);
  if (op == kAdd) {
    check_scale(args, 4);
    check_zero_point(args, 5, kInt8);
    check_scale(args, 6);
    check_zero_point(args, 7, kInt8);
    args.number(8);
  } else {
    check_scale(args, next + 2);
    check_zero_point(args, next + 3, kInt8);
  }
  if (op == kPixelShuffle) {
    args.expect_rank(0, 4);
    const int64_t r = args.integer(5);
    if (r < 1 || a.max_dims[1] % (r * r) != 0) {
      args.fail(5, "upscale factor " + std::to_string(r) + ": its square must divide the channels " +
                       std::to_string(a.max_dims[1]));
    }
  }
  const size_t o = arg_count(op) - 1;
  const Dims want = out_dims(args, op, a.max_dims);
  if (args.tensor(o, {DType::I8}).max_dims != want) {
    args.fail(o, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(o).max_dims));
  }
}

void lower(OpContext& ctx, Op op) {
  const OpArgs& args = ctx.args();
  const ValueId a = ctx.arg(0), out = ctx.arg(arg_count(op) - 1);
  const ValueId b = op == kAdd ? ctx.arg(1) : a;
  const auto& pipeline = ctx.pipeline("qdq/q8ta_elementwise.wgsl", "main", {{"WG", kWorkgroup}, {"OP", double(op)}});
  const UniformId u = ctx.uniform(sizeof(EwParams));
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(a), ctx.tensor(b), ctx.tensor(out), ctx.uniform_binding(u)});
  EwParams base;
  const size_t s = op == kAdd ? 2 : 1;
  base.a_scale = static_cast<float>(args.number(s));
  base.a_zp = static_cast<int32_t>(zero_point_value(args, s + 1));
  if (op == kAdd) {
    base.b_scale = static_cast<float>(args.number(4));
    base.b_zp = static_cast<int32_t>(zero_point_value(args, 5));
    base.out_inv_scale = static_cast<float>(1.0 / args.number(6));
    base.out_zp = static_cast<int32_t>(zero_point_value(args, 7));
    base.alpha = static_cast<float>(args.number(8));
  } else if (op == kRelu) {
    base.out_inv_scale = static_cast<float>(1.0 / args.number(3));
    base.out_zp = static_cast<int32_t>(zero_point_value(args, 4));
  } else {
    // The reference quantizes with scale = 1 / out_inv_scale, i.e. multiplies by 1 / that.
    base.out_inv_scale = static_cast<float>(1.0 / (1.0 / args.number(3)));
    base.out_zp = static_cast<int32_t>(zero_point_value(args, 4));
    base.r = static_cast<uint32_t>(args.integer(5));
  }
  const int64_t r = base.r;
  ctx.on_resize({a}, [=](ResizeContext& rc) {
    Dims dims = rc.dims(a);
    if (op == kPixelShuffle) dims = {dims[0], dims[1] / (r * r), dims[2] * r, dims[3] * r};
    rc.set_dims(out, dims);
    EwParams p = base;
    p.count = static_cast<uint32_t>(numel(dims));
    if (op == kPixelShuffle) {
      p.oc = static_cast<uint32_t>(dims[1]);
      p.oh = static_cast<uint32_t>(dims[2]);
      p.ow = static_cast<uint32_t>(dims[3]);
    }
    rc.write_uniform(u, p);
    rc.set_workgroups(d, rc.fold(gpu::div_up(gpu::div_up(p.count, 4), kWorkgroup)));
  });
}

void add(OpRegistry& registry, const char* name, Op op) {
  registry.add(name, {[op](const OpArgs& a) { check(a, op); }, [op](OpContext& c) { lower(c, op); }, false, nullptr,
                      "int8"});
}

}  // namespace

void register_q8ta_elementwise(OpRegistry& registry) {
  add(registry, "et_vk.q8ta_add.default", kAdd);
  add(registry, "et_vk.q8ta_relu.default", kRelu);
  add(registry, "et_vk.q8ta_pixel_shuffle.default", kPixelShuffle);
}

}  // namespace wgrt::ops
