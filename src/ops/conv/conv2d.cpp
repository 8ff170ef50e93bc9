// aten.convolution.default (x, weight, bias or Null, stride, padding,
// dilation, transposed, output_padding, groups, out) and
// et_vk.conv_with_clamp.default (the same, then output_min, output_max, out):
// f32, 2D on [N, C, H, W] or 1D on [N, C, L] (run as height 1), regular or
// transposed, grouped. Depthwise convolutions (one input channel per group,
// not transposed) take conv2d.wgsl's main_depthwise; all others its implicit
// GEMM. N, H and W may change at run time; channels may not.
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/conv/window.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

#include <limits>

namespace wgrt::ops {
namespace {

// Mirrors `Params` in conv2d.wgsl.
struct ConvParams {
  uint32_t n, cin, h, w;
  uint32_t cout, oh, ow, groups;
  uint32_t kh, kw;
  int32_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
  uint32_t cin_g, cout_g, k_total, m_total;
  float out_min, out_max;
  uint32_t row_tiles, pad;
};
static_assert(sizeof(ConvParams) == 96, "must match Params in conv2d.wgsl");

constexpr uint32_t kDepthwiseWorkgroup = 64;
constexpr uint32_t kTile = 64;  // main_gemm's output tile edge (pixels and channels)

struct ConvArgs {
  size_t spatial = 2;  // 1 for conv1d
  std::array<int64_t, 2> stride{}, pad{}, dil{}, out_pad{};
  bool transposed = false;
  int64_t groups = 1;
  float out_min = -std::numeric_limits<float>::infinity();
  float out_max = std::numeric_limits<float>::infinity();
  size_t out_arg = 9;
};

// 1x1, stride 1, no padding, not transposed: the im2col matrix is the input.
bool pointwise(const ConvArgs& c, const Dims& w) {
  const bool unit_window = w.back() == 1 && (c.spatial == 1 || w[2] == 1);
  return unit_window && !c.transposed && c.stride == std::array<int64_t, 2>{1, 1} &&
         c.pad == std::array<int64_t, 2>{0, 0};
}

// Reads and checks everything but the output shape; shared by check and lower.
ConvArgs read_args(const OpArgs& args, bool with_clamp) {
  ConvArgs c;
  c.out_arg = with_clamp ? 11 : 9;
  args.expect_count(c.out_arg + 1);
  const Tensor& x = args.tensor(0, {DType::F32});
  if (x.max_dims.size() != 3 && x.max_dims.size() != 4) {
    args.fail(0, "expected a 3D (conv1d) or 4D (conv2d) input, got " + dims_string(x.max_dims));
  }
  c.spatial = x.max_dims.size() - 2;
  const Tensor& w = args.tensor(1, {DType::F32});
  if (w.max_dims.size() != x.max_dims.size()) {
    args.fail(1, "expected a weight of rank " + std::to_string(x.max_dims.size()) + ", got " + dims_string(w.max_dims));
  }
  c.stride = window_pair(args, 3, c.spatial, 1, 1, "stride");
  c.pad = window_pair(args, 4, c.spatial, 0, 0, "padding");
  c.dil = window_pair(args, 5, c.spatial, 1, 1, "dilation");
  c.transposed = args.boolean(6);
  c.out_pad = window_pair(args, 7, c.spatial, 0, 0, "output_padding");
  c.groups = args.integer(8);
  if (c.groups < 1) args.fail(8, "groups " + std::to_string(c.groups) + " is below 1");
  if (!c.transposed && (c.out_pad[0] != 0 || c.out_pad[1] != 0)) {
    args.fail(7, "output_padding " + dims_string(args.int_list(7)) + " on a convolution that is not transposed");
  }
  const int64_t cin = x.max_dims[1];
  if (cin % c.groups != 0) args.fail(8, "groups " + std::to_string(c.groups) + " does not divide " + std::to_string(cin) + " input channels");
  const int64_t cin_g = c.transposed ? w.max_dims[0] / c.groups : w.max_dims[1];
  if ((c.transposed ? w.max_dims[0] : w.max_dims[1] * c.groups) != cin || cin_g * c.groups != cin) {
    args.fail(1, "weight " + dims_string(w.max_dims) + " does not fit " + std::to_string(cin) + " input channels in " +
                     std::to_string(c.groups) + " groups");
  }
  if (!c.transposed && w.max_dims[0] % c.groups != 0) {
    args.fail(1, "weight " + dims_string(w.max_dims) + ": output channels not divisible by groups " + std::to_string(c.groups));
  }
  if (!args.is_null(2)) {
    const Tensor& b = args.tensor(2, {DType::F32});
    const int64_t cout = c.transposed ? w.max_dims[1] * c.groups : w.max_dims[0];
    if (b.max_dims != Dims{cout}) args.fail(2, "expected bias shape [" + std::to_string(cout) + "], got " + dims_string(b.max_dims));
  }
  if (with_clamp) {
    if (!args.is_null(9)) c.out_min = static_cast<float>(args.number(9));
    if (!args.is_null(10)) c.out_max = static_cast<float>(args.number(10));
  }
  args.tensor(c.out_arg, {DType::F32});
  return c;
}

// The output shape for an input of shape `x` and the weight `w`.
Dims out_dims(const ConvArgs& c, const Dims& x, const Dims& w) {
  const size_t s = c.spatial;
  const int64_t kh = s == 2 ? w[2] : 1, kw = w.back();
  const int64_t cout = c.transposed ? w[1] * c.groups : w[0];
  const int64_t h = s == 2 ? x[2] : 1, wd = x.back();
  auto size = [&](int64_t in, int64_t k, int d) {
    return c.transposed ? transposed_out_size(in, k, c.stride[d], c.pad[d], c.dil[d], c.out_pad[d])
                        : window_out_size(in, k, c.stride[d], c.pad[d], c.dil[d], false);
  };
  Dims out = {x[0], cout};
  if (s == 2) out.push_back(size(h, kh, 0));
  out.push_back(size(wd, kw, 1));
  return out;
}

void check(const OpArgs& args, bool with_clamp) {
  const ConvArgs c = read_args(args, with_clamp);
  const Dims want = out_dims(c, args.tensor(0).max_dims, args.tensor(1).max_dims);
  for (int64_t d : want) {
    if (d < 1) args.fail(c.out_arg, "the window does not fit the input " + dims_string(args.tensor(0).max_dims));
  }
  if (args.tensor(c.out_arg).max_dims != want) {
    args.fail(c.out_arg, "expected shape " + dims_string(want) + ", got " + dims_string(args.tensor(c.out_arg).max_dims));
  }
}

void lower(OpContext& ctx, bool with_clamp) {
  const OpArgs& args = ctx.args();
  const ConvArgs c = read_args(args, with_clamp);
  const ValueId x = ctx.arg(0), w = ctx.arg(1), out = ctx.arg(c.out_arg);
  const bool has_bias = !args.is_null(2);
  const Dims wd = ctx.max_dims(w);
  const int64_t cin = ctx.max_dims(x)[1];
  const int64_t cin_g = cin / c.groups;
  const bool depthwise = !c.transposed && cin_g == 1;
  const auto& pipeline =
      depthwise ? ctx.pipeline("conv/conv2d.wgsl", "main_depthwise", {{"HAS_BIAS", has_bias ? 1.0 : 0.0}})
                : ctx.pipeline("conv/conv2d.wgsl", "main_gemm",
                               {{"TRANSPOSED", c.transposed ? 1.0 : 0.0}, {"HAS_BIAS", has_bias ? 1.0 : 0.0},
                                {"POINTWISE", pointwise(c, wd) ? 1.0 : 0.0}});
  const UniformId u = ctx.uniform(sizeof(ConvParams));
  // The weight stands in for an absent bias (never read).
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(w), ctx.tensor(has_bias ? ctx.arg(2) : w),
                                               ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({x}, [=](ResizeContext& r) {
    const Dims& xd = r.dims(x);
    const Dims od = out_dims(c, xd, wd);
    r.set_dims(out, od);
    ConvParams p{};
    p.n = uint32_t(xd[0]);
    p.cin = uint32_t(cin);
    p.h = uint32_t(c.spatial == 2 ? xd[2] : 1);
    p.w = uint32_t(xd.back());
    p.cout = uint32_t(od[1]);
    p.oh = uint32_t(c.spatial == 2 ? od[2] : 1);
    p.ow = uint32_t(od.back());
    p.groups = uint32_t(c.groups);
    p.kh = uint32_t(c.spatial == 2 ? wd[2] : 1);
    p.kw = uint32_t(wd.back());
    p.stride_h = int32_t(c.stride[0]), p.stride_w = int32_t(c.stride[1]);
    p.pad_h = int32_t(c.pad[0]), p.pad_w = int32_t(c.pad[1]);
    p.dil_h = int32_t(c.dil[0]), p.dil_w = int32_t(c.dil[1]);
    p.cin_g = uint32_t(cin_g);
    p.cout_g = p.cout / p.groups;
    p.k_total = p.cin_g * p.kh * p.kw;
    p.m_total = p.n * p.oh * p.ow;
    p.out_min = c.out_min, p.out_max = c.out_max;
    p.row_tiles = uint32_t(gpu::div_up(p.ow, 4));
    r.write_uniform(u, p);
    if (depthwise) {
      r.set_workgroups(d, r.fold(gpu::div_up(uint64_t(p.n) * p.cout * p.oh * p.row_tiles, kDepthwiseWorkgroup)));
    } else {
      r.set_workgroups(d, {uint32_t(gpu::div_up(p.m_total, kTile)), uint32_t(gpu::div_up(p.cout_g, kTile)), p.groups});
    }
  });
}

}  // namespace

void register_conv(OpRegistry& registry) {
  registry.add("aten.convolution.default", {[](const OpArgs& a) { check(a, false); }, [](OpContext& c) { lower(c, false); }});
  registry.add("et_vk.conv_with_clamp.default",
               {[](const OpArgs& a) { check(a, true); }, [](OpContext& c) { lower(c, true); }});
}

}  // namespace wgrt::ops
