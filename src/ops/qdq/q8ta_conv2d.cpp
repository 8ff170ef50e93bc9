// et_vk.q8ta_conv2d / q8ta_conv2d_pw / q8ta_conv2d_dw / q8ta_conv2d_transposed:
//   (x int8 [N, C, H, W], x_scale, x_zp, weights int8, weight_sums, weight_scales,
//    out_scale, out_zp, bias or None, kernel_size, stride, padding,
//    [output_padding: transposed only], dilation, groups, activation, out int8)
// Weight layouts and numerics are in q8ta_conv2d.wgsl. weight_sums (the
// exporter's zero-point correction) is not needed: the kernel subtracts x's
// zero point per tap. N, H and W may change at run time.
#include <array>
#include <string>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/qparams.h"
#include "ops/register_ops.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;  // WG in qdq/q8ta_conv2d.wgsl

struct ConvParams {
  uint32_t batch = 0, ic = 0, ih = 0, iw = 0;
  uint32_t oc = 0, oh = 0, ow = 0, groups = 1;
  uint32_t kh = 0, kw = 0, stride_y = 1, stride_x = 1;
  uint32_t pad_y = 0, pad_x = 0, dil_y = 1, dil_x = 1;
  uint32_t w_row = 0;
  int32_t x_zp = 0, out_zp = 0;
  float x_scale = 0, out_inv_scale = 0;
  uint32_t pad[3] = {};
};
static_assert(sizeof(ConvParams) == 96, "must match Params in q8ta_conv2d.wgsl");

enum class Kind { General, Pointwise, Depthwise, Transposed };

struct Layout {
  size_t dilation, groups, activation, out;
};

Layout layout(Kind k) {
  const size_t d = k == Kind::Transposed ? 13 : 12;
  return {d, d + 1, d + 2, d + 3};
}

constexpr IntRange kInt8 = {-128, 127};

// A pair from an IntList argument ([v] repeats v).
std::array<int64_t, 2> pair(const OpArgs& args, size_t i, int64_t min) {
  const IntList& l = args.int_list(i);
  if (l.empty() || l.size() > 2) args.fail(i, "expected 1 or 2 values");
  std::array<int64_t, 2> v = {l[0], l.size() == 2 ? l[1] : l[0]};
  for (int64_t e : v) {
    if (e < min) args.fail(i, "value " + std::to_string(e) + " is below " + std::to_string(min));
  }
  return v;
}

int64_t out_size(Kind k, int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dil, int64_t out_pad) {
  if (k == Kind::Transposed) return (in - 1) * stride - 2 * pad + dil * (kernel - 1) + out_pad + 1;
  return (in + 2 * pad - dil * (kernel - 1) - 1) / stride + 1;
}

bool relu(const OpArgs& args, size_t i) {
  const auto* s = std::get_if<std::string>(&args.value(i));
  if (!s || (*s != "none" && *s != "relu")) args.fail(i, "activation must be \"none\" or \"relu\"");
  return *s == "relu";
}

void check(const OpArgs& args, Kind kind) {
  const Layout at = layout(kind);
  args.expect_count(at.out + 1);
  const Tensor& x = args.tensor(0, {DType::I8});
  args.expect_rank(0, 4);
  check_scale(args, 1);
  check_zero_point(args, 2, kInt8);
  const Tensor& w = args.tensor(3, {DType::I8});
  check_scale(args, 6);
  check_zero_point(args, 7, kInt8);
  const auto ks = pair(args, 9, 1), stride = pair(args, 10, 1), pad = pair(args, 11, 0), dil = pair(args, at.dilation, 1);
  const std::array<int64_t, 2> out_pad = kind == Kind::Transposed ? pair(args, 12, 0) : std::array<int64_t, 2>{0, 0};
  const int64_t groups = args.integer(at.groups);
  relu(args, at.activation);
  const Tensor& out = args.tensor(at.out, {DType::I8});
  args.expect_rank(at.out, 4);
  const int64_t ic = x.max_dims[1], oc = out.max_dims[1];
  if (groups < 1 || ic % groups != 0 || oc % groups != 0) {
    args.fail(at.groups, "groups " + std::to_string(groups) + " must divide the input channels " + std::to_string(ic) +
                             " and output channels " + std::to_string(oc));
  }
  if (kind == Kind::Depthwise) {
    if (groups != ic || groups != oc) args.fail(at.groups, "a depthwise convolution needs groups = channels");
    if (w.max_dims.size() != 3 || w.max_dims[0] != ks[0] || w.max_dims[1] != ks[1] || w.max_dims[2] < oc) {
      args.fail(3, "expected [" + std::to_string(ks[0]) + ", " + std::to_string(ks[1]) + ", >= " + std::to_string(oc) +
                       "], got " + dims_string(w.max_dims));
    }
  } else {
    const int64_t k = ks[0] * ks[1] * (ic / groups), k4 = (k + 3) / 4 * 4;
    if (w.max_dims.size() != 2 || w.max_dims[0] != oc || (w.max_dims[1] != k && w.max_dims[1] != k4)) {
      args.fail(3, "expected [" + std::to_string(oc) + ", " + std::to_string(k4) + "] (kernel x input channels per group, "
                       "padded to 4), got " + dims_string(w.max_dims));
    }
  }
  const int64_t n_scales = numel(args.tensor(5).max_dims);
  if (n_scales < oc) args.fail(5, "expected at least " + std::to_string(oc) + " scales, got " + std::to_string(n_scales));
  check_scale_tensor(args, 5, n_scales, oc);
  if (!args.is_null(8) && numel(args.tensor(8, {DType::F32}).max_dims) < oc) {
    args.fail(8, "expected at least " + std::to_string(oc) + " bias values");
  }
  const Dims want = {x.max_dims[0], oc, out_size(kind, x.max_dims[2], ks[0], stride[0], pad[0], dil[0], out_pad[0]),
                     out_size(kind, x.max_dims[3], ks[1], stride[1], pad[1], dil[1], out_pad[1])};
  if (out.max_dims != want) {
    args.fail(at.out, "expected shape " + dims_string(want) + ", got " + dims_string(out.max_dims));
  }
}

void lower(OpContext& ctx, Kind kind) {
  const OpArgs& args = ctx.args();
  const Layout at = layout(kind);
  const ValueId x = ctx.arg(0), w = ctx.arg(3), out = ctx.arg(at.out);
  const bool has_bias = !args.is_null(8);
  const auto& pipeline = ctx.pipeline("qdq/q8ta_conv2d.wgsl", "main",
                                      {{"WG", kWorkgroup}, {"LAYOUT", kind == Kind::Depthwise ? 1.0 : 0.0},
                                       {"TRANSPOSED", kind == Kind::Transposed ? 1.0 : 0.0},
                                       {"HAS_BIAS", has_bias ? 1.0 : 0.0},
                                       {"RELU", relu(args, at.activation) ? 1.0 : 0.0}});
  const UniformId u = ctx.uniform(sizeof(ConvParams));
  const gpu::BufferBinding scales = ctx.tensor(ctx.arg(5));
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(w), scales,
                                               has_bias ? ctx.tensor(ctx.arg(8)) : scales, ctx.tensor(out),
                                               ctx.uniform_binding(u)});
  const auto ks = pair(args, 9, 1), stride = pair(args, 10, 1), pad = pair(args, 11, 0), dil = pair(args, at.dilation, 1);
  const std::array<int64_t, 2> out_pad = kind == Kind::Transposed ? pair(args, 12, 0) : std::array<int64_t, 2>{0, 0};
  ConvParams base;
  base.oc = static_cast<uint32_t>(ctx.max_dims(out)[1]);
  base.groups = static_cast<uint32_t>(args.integer(at.groups));
  base.kh = static_cast<uint32_t>(ks[0]);
  base.kw = static_cast<uint32_t>(ks[1]);
  base.stride_y = static_cast<uint32_t>(stride[0]);
  base.stride_x = static_cast<uint32_t>(stride[1]);
  base.pad_y = static_cast<uint32_t>(pad[0]);
  base.pad_x = static_cast<uint32_t>(pad[1]);
  base.dil_y = static_cast<uint32_t>(dil[0]);
  base.dil_x = static_cast<uint32_t>(dil[1]);
  base.w_row = static_cast<uint32_t>(ctx.max_dims(w).back());
  base.x_scale = static_cast<float>(args.number(1));
  base.x_zp = static_cast<int32_t>(zero_point_value(args, 2));
  base.out_inv_scale = static_cast<float>(1.0 / args.number(6));
  base.out_zp = static_cast<int32_t>(zero_point_value(args, 7));
  ctx.on_resize({x}, [=](ResizeContext& r) {
    const Dims& in = r.dims(x);
    ConvParams p = base;
    p.batch = static_cast<uint32_t>(in[0]);
    p.ic = static_cast<uint32_t>(in[1]);
    p.ih = static_cast<uint32_t>(in[2]);
    p.iw = static_cast<uint32_t>(in[3]);
    p.oh = static_cast<uint32_t>(out_size(kind, in[2], ks[0], stride[0], pad[0], dil[0], out_pad[0]));
    p.ow = static_cast<uint32_t>(out_size(kind, in[3], ks[1], stride[1], pad[1], dil[1], out_pad[1]));
    r.set_dims(out, {in[0], int64_t(p.oc), int64_t(p.oh), int64_t(p.ow)});
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(gpu::div_up(uint64_t(p.batch) * p.oc * p.oh * p.ow, 4), kWorkgroup)));
  });
}

void add(OpRegistry& registry, const char* name, Kind k) {
  registry.add(name, {[k](const OpArgs& a) { check(a, k); }, [k](OpContext& c) { lower(c, k); }, false, nullptr,
                      "int8 (int8 weights)"});
}

}  // namespace

void register_q8ta_conv2d(OpRegistry& registry) {
  add(registry, "et_vk.q8ta_conv2d.default", Kind::General);
  add(registry, "et_vk.q8ta_conv2d_pw.default", Kind::Pointwise);
  add(registry, "et_vk.q8ta_conv2d_dw.default", Kind::Depthwise);
  add(registry, "et_vk.q8ta_conv2d_transposed.default", Kind::Transposed);
}

}  // namespace wgrt::ops
