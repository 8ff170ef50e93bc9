// aten.upsample_nearest2d.vec (x, output_size or Null, scale_factors or Null, out)
// and aten.upsample_bilinear2d.vec (x, output_size or Null, align_corners,
// scale_factors or Null, out): f32 on [N, C, H, W]. With scale factors the
// output follows the live input (floor(in * scale)); with an output size it
// is fixed. Source coordinates use PyTorch's rules (1 / scale when a scale
// is given, in / out otherwise).
#include <cmath>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;  // WG in sample/upsample.wgsl

struct UpsampleParams {
  uint32_t count, h, w, oh, ow;
  float scale_h, scale_w;
  uint32_t pad;
};
static_assert(sizeof(UpsampleParams) == 32, "must match Params in upsample.wgsl");

struct UpsampleArgs {
  bool bilinear = false, align_corners = false, has_size = false;
  int64_t size[2] = {0, 0};
  double scale[2] = {0, 0};
  size_t out_arg = 3;
};

UpsampleArgs read_args(const OpArgs& args, bool bilinear) {
  UpsampleArgs a;
  a.bilinear = bilinear;
  a.out_arg = bilinear ? 4 : 3;
  args.expect_count(a.out_arg + 1);
  const Tensor& x = args.tensor(0, {DType::F32});
  args.expect_rank(0, 4);
  if (bilinear) a.align_corners = args.boolean(2);
  const size_t scale_arg = bilinear ? 3 : 2;
  if (!args.is_null(1)) {
    const IntList& size = args.int_list(1);
    if (size.size() != 2 || size[0] < 1 || size[1] < 1) args.fail(1, "output_size " + dims_string(size) + ": expected 2 positive sizes");
    a.has_size = true;
    a.size[0] = size[0], a.size[1] = size[1];
  } else if (!args.is_null(scale_arg)) {
    const auto* scales = std::get_if<DoubleList>(&args.value(scale_arg));
    if (scales == nullptr || scales->size() != 2 || (*scales)[0] <= 0 || (*scales)[1] <= 0) {
      args.fail(scale_arg, "scale_factors: expected 2 positive numbers");
    }
    a.scale[0] = (*scales)[0], a.scale[1] = (*scales)[1];
  } else {
    args.fail(1, "neither output_size nor scale_factors is given");
  }
  (void)x;
  args.tensor(a.out_arg, {DType::F32});
  return a;
}

Dims out_dims(const UpsampleArgs& a, const Dims& x) {
  if (a.has_size) return {x[0], x[1], a.size[0], a.size[1]};
  return {x[0], x[1], int64_t(std::floor(double(x[2]) * a.scale[0])), int64_t(std::floor(double(x[3]) * a.scale[1]))};
}

// PyTorch's source-per-output ratio along one dim.
float ratio(const UpsampleArgs& a, int d, int64_t in, int64_t out) {
  if (a.bilinear && a.align_corners) return out > 1 ? float(double(in - 1) / double(out - 1)) : 0.0f;
  if (!a.has_size) return float(1.0 / a.scale[d]);
  return float(double(in) / double(out));
}

void check(const OpArgs& args, bool bilinear) {
  const UpsampleArgs a = read_args(args, bilinear);
  const Dims want = out_dims(a, args.tensor(0).max_dims);
  if (args.tensor(a.out_arg).max_dims != want) {
    args.fail(a.out_arg, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(a.out_arg).max_dims));
  }
}

void lower(OpContext& ctx, bool bilinear) {
  const UpsampleArgs a = read_args(ctx.args(), bilinear);
  const ValueId x = ctx.arg(0), out = ctx.arg(a.out_arg);
  const auto& pipeline = ctx.pipeline("sample/upsample.wgsl", "main",
                                      {{"WG", kWorkgroup}, {"BILINEAR", bilinear ? 1.0 : 0.0}, {"ALIGN_CORNERS", a.align_corners ? 1.0 : 0.0}});
  const UniformId u = ctx.uniform(sizeof(UpsampleParams));
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({x}, [=](ResizeContext& r) {
    const Dims& xd = r.dims(x);
    const Dims od = out_dims(a, xd);
    r.set_dims(out, od);
    UpsampleParams p{};
    p.count = uint32_t(numel(od));
    p.h = uint32_t(xd[2]), p.w = uint32_t(xd[3]), p.oh = uint32_t(od[2]), p.ow = uint32_t(od[3]);
    p.scale_h = ratio(a, 0, xd[2], od[2]);
    p.scale_w = ratio(a, 1, xd[3], od[3]);
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.count, kWorkgroup)));
  });
}

}  // namespace

void register_sample(OpRegistry& registry) {
  registry.add("aten.upsample_nearest2d.vec", {[](const OpArgs& a) { check(a, false); }, [](OpContext& c) { lower(c, false); }});
  registry.add("aten.upsample_bilinear2d.vec", {[](const OpArgs& a) { check(a, true); }, [](OpContext& c) { lower(c, true); }});
}

}  // namespace wgrt::ops
