// The Vulkan backend's fused 8-bit linears (q8ta_linear.wgsl has the math):
//   et_vk.q8ta_linear.default / q8ta_linear_gemv.default
//     (x int8 [..., K], x_scale, x_zp, weights int8 [N, K4], weight_sums, weight_scales [>= N],
//      out_scale, out_zp, bias [>= N] or None, activation "none" | "relu", out int8 [..., N])
//   et_vk.linear_q8ta_q8csw.default
//     (x int8 [..., K], x_scale, x_zp, weights, weight_sums, weight_scales, bias or None, out f32)
//     (the exporter quantizes x with a quantize_per_tensor before it)
// K4 is K rounded up to a multiple of 4 (the exporter pads weight rows);
// scales and bias are padded to a multiple of 4 as well. weight_sums (the
// exporter's precomputed zero-point correction) is not needed: the kernel
// subtracts x's zero point before multiplying. gemv is the same kernel.
#include <string>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/qparams.h"
#include "ops/register_ops.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;  // WG in qdq/q8ta_linear.wgsl

struct Q8Params {
  uint32_t m = 0, n = 0, k = 0, w_row_words = 0;
  int32_t x_zp = 0, out_zp = 0;
  float x_scale = 0;
  uint32_t pad3 = 0;
  float out_inv_scale = 0;
  uint32_t pad[3] = {};
};
static_assert(sizeof(Q8Params) == 48, "must match Params in q8ta_linear.wgsl");

struct Form {
  bool int8_io;   // q8ta_linear(_gemv): int8 out (and its scale, zero point, activation); else f32 out
  size_t count;
  size_t bias;
};

constexpr IntRange kInt8 = {-128, 127};

bool relu(const OpArgs& args, const Form& f) {
  if (!f.int8_io) return false;
  const auto* s = std::get_if<std::string>(&args.value(9));
  if (!s || (*s != "none" && *s != "relu")) args.fail(9, "activation must be \"none\" or \"relu\"");
  return *s == "relu";
}

void check(const OpArgs& args, const Form& f) {
  args.expect_count(f.count);
  const DType io = f.int8_io ? DType::I8 : DType::F32;
  const Tensor& x = args.tensor(0, {DType::I8});
  args.expect_rank_at_least(0, 1);
  check_scale(args, 1);
  check_zero_point(args, 2, kInt8);
  const Tensor& w = args.tensor(3, {DType::I8});
  args.expect_rank(3, 2);
  const int64_t k = x.max_dims.back(), n = w.max_dims[0], k4 = (k + 3) / 4 * 4;
  if (w.max_dims[1] != k4) {
    args.fail(3, "expected [N, " + std::to_string(k4) + "] (K = " + std::to_string(k) +
                     " padded to a multiple of 4), got " + dims_string(w.max_dims));
  }
  const int64_t n_padded = (n + 3) / 4 * 4;
  const int64_t scales = numel(args.tensor(5).max_dims);
  if (scales != n && scales != n_padded) {
    args.fail(5, "expected " + std::to_string(n) + " or " + std::to_string(n_padded) + " scales, got " +
                     std::to_string(scales));
  }
  check_scale_tensor(args, 5, scales, n);
  if (f.int8_io) {
    check_scale(args, 6);
    check_zero_point(args, 7, kInt8);
    relu(args, f);
  }
  if (!args.is_null(f.bias) && numel(args.tensor(f.bias, {DType::F32}).max_dims) < n) {
    args.fail(f.bias, "expected at least " + std::to_string(n) + " bias values, got " +
                          dims_string(args.tensor(f.bias).max_dims));
  }
  Dims want = x.max_dims;
  want.back() = n;
  const Tensor& out = args.tensor(f.count - 1, {io});
  if (out.max_dims != want) {
    args.fail(f.count - 1, "expected shape " + dims_string(want) + ", got " + dims_string(out.max_dims));
  }
}

void lower(OpContext& ctx, const Form& f) {
  const OpArgs& args = ctx.args();
  const ValueId x = ctx.arg(0), w = ctx.arg(3), out = ctx.arg(f.count - 1);
  const bool has_bias = !args.is_null(f.bias);
  const auto& pipeline = ctx.pipeline("qdq/q8ta_linear.wgsl", "main",
                                      {{"WG", kWorkgroup}, {"OUT_INT8", f.int8_io ? 1.0 : 0.0},
                                       {"HAS_BIAS", has_bias ? 1.0 : 0.0},
                                       {"RELU", relu(args, f) ? 1.0 : 0.0}});
  const UniformId u = ctx.uniform(sizeof(Q8Params));
  const gpu::BufferBinding scales = ctx.tensor(ctx.arg(5));
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(w), scales,
                                               has_bias ? ctx.tensor(ctx.arg(f.bias)) : scales, ctx.tensor(out),
                                               ctx.uniform_binding(u)});
  Q8Params base;
  base.n = static_cast<uint32_t>(ctx.max_dims(w)[0]);
  base.k = static_cast<uint32_t>(ctx.max_dims(x).back());
  base.w_row_words = static_cast<uint32_t>(ctx.max_dims(w)[1] / 4);
  base.x_scale = static_cast<float>(args.number(1));
  base.x_zp = static_cast<int32_t>(zero_point_value(args, 2));
  if (f.int8_io) {
    base.out_inv_scale = static_cast<float>(1.0 / args.number(6));
    base.out_zp = static_cast<int32_t>(zero_point_value(args, 7));
  }
  ctx.on_resize({x}, [=](ResizeContext& r) {
    Dims dims = r.dims(x);
    Q8Params p = base;
    p.m = static_cast<uint32_t>(numel(dims) / p.k);
    dims.back() = p.n;
    r.set_dims(out, dims);
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(gpu::div_up(uint64_t(p.m) * p.n, 4), kWorkgroup)));
  });
}

void add(OpRegistry& registry, const char* name, Form f, const char* dtypes) {
  registry.add(name, {[f](const OpArgs& a) { check(a, f); }, [f](OpContext& c) { lower(c, f); }, false, nullptr, dtypes});
}

}  // namespace

void register_q8ta_linear(OpRegistry& registry) {
  add(registry, "et_vk.q8ta_linear.default", {true, 11, 8}, "int8 (int8 weights)");
  add(registry, "et_vk.q8ta_linear_gemv.default", {true, 11, 8}, "int8 (int8 weights)");
  add(registry, "et_vk.linear_q8ta_q8csw.default", {false, 8, 6}, "int8 -> f32 (int8 weights)");
}

}  // namespace wgrt::ops
