// et_vk.linear_dq8ca_q4gsw.default (x f32 [..., K], input_scales [rows],
// input_zero_points [rows] int8/int32, weights u8 [N, K/2], weight_sums,
// weight_scales [K / group_size, >= N], group_size, bias or None, out [..., N]):
// the 8da4w linear (Int8DynamicActivationIntxWeightConfig, export_llama
// -qmode 8da4w). x is quantized per row to int8 with the scales and zero
// points choose_qparams_affine computed, dequantized (dq8_rows.wgsl, as the CPU
// graph does), then multiplied by the 4-bit weights with linear_q4gsw's
// kernels. weight_sums (an integer-accumulation correction) is not needed.
// Where choose_qparams_affine's parameters are the per-row int8 ones, the
// graph pass ops/passes/ggml_linears.h moves the linear into the GGUF family
// instead, which requantizes x inside its kernels (linear/x_dq8.wgsl).
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/qparams.h"
#include "ops/linear/linear_q4gsw.h"
#include "ops/register_ops.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;  // WG in linear/dq8_rows.wgsl

struct Dq8Params {
  uint32_t count = 0, k = 0, pad[2] = {};
};
static_assert(sizeof(Dq8Params) == 16, "must match Params in dq8_rows.wgsl");

// x's per-row scales (argument 1) and zero points (2), for rows of x (0).
void check_row_qparams(const OpArgs& args) {
  const Dims& x = args.tensor(0).max_dims;
  const int64_t rows = numel(x) / x.back();
  check_scale_tensor(args, 1, rows);
  const Tensor& zp = args.tensor(2, {DType::I8, DType::I32});
  check_zero_point_tensor(args, 2, rows, int_range(args, 2, zp.dtype));
}

void check(const OpArgs& args) {
  args.expect_count(9);
  check_q4gsw_args(args, {0, 3, 5, 6, 7, 8});
  check_row_qparams(args);
}

// Records dq8_rows.wgsl: x (argument 0) requantized with arguments 1 and 2 into `out`.
void record_dq8_rows(OpContext& ctx, const gpu::BufferBinding& out) {
  const ValueId x = ctx.arg(0);
  const bool zp_int8 = ctx.tensor_info(ctx.arg(2)).dtype == DType::I8;
  const auto& pipeline = ctx.pipeline("linear/dq8_rows.wgsl", "main", {{"WG", kWorkgroup}, {"ZP_INT8", zp_int8 ? 1.0 : 0.0}});
  const UniformId u = ctx.uniform(sizeof(Dq8Params));
  const DispatchId d =
      ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(ctx.arg(1)), ctx.tensor(ctx.arg(2)), out, ctx.uniform_binding(u)});
  const uint32_t k = static_cast<uint32_t>(ctx.max_dims(x).back());
  ctx.on_resize({x}, [=](ResizeContext& r) {
    Dq8Params p;
    p.count = static_cast<uint32_t>(numel(r.dims(x)));
    p.k = k;
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.count, kWorkgroup)));
  });
}

void lower(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId x = ctx.arg(0);
  const gpu::BufferBinding requantized = ctx.scratch(uint64_t(numel(ctx.max_dims(x))) * 4, "linear_dq8ca_q4gsw x");
  record_dq8_rows(ctx, requantized);
  record_linear_q4gsw(ctx, requantized, x, ctx.arg(3), ctx.arg(5), args.integer(6), args.is_null(7) ? kNoBias : ctx.arg(7),
                      ctx.arg(8));
}

}  // namespace

void register_linear_dq8ca_q4gsw(OpRegistry& registry) {
  registry.add("et_vk.linear_dq8ca_q4gsw.default", {check, lower, false, nullptr, "f32 (int8 dynamic activations, 4-bit weights)"});
}

}  // namespace wgrt::ops
