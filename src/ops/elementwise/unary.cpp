// Elementwise unary ops: one shader (unary.wgsl), the function picked by an
// override constant.
#include <limits>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;

// Mirrors `Params` in unary.wgsl.
struct UnaryParams {
  uint32_t count = 0;
  float lo = 0;
  float hi = 0;
  uint32_t pad = 0;
};
static_assert(sizeof(UnaryParams) == 16);

enum class UnaryOp : uint32_t {
  Relu, Sigmoid, Tanh, Exp, Neg, Rsqrt, GeluErf, GeluTanh, Clamp, Silu, Sqrt, Abs,
  Cos, Sin, Round, Log10, Hardswish, Hardshrink, LeakyRelu
};

// Argument layouts: most are (x, out); gelu is (x, approximate, out); clamp is
// (x, min, max, out) with either bound possibly Null; leaky_relu is (x,
// negative_slope, out) and hardshrink (x, lambd, out), the number in `lo`.
struct UnaryDef {
  const char* name;
  UnaryOp op;
  size_t arg_count;
};

constexpr UnaryDef kUnaryOps[] = {
    {"aten.relu.default", UnaryOp::Relu, 2},       {"aten.sigmoid.default", UnaryOp::Sigmoid, 2},
    {"aten.tanh.default", UnaryOp::Tanh, 2},       {"aten.exp.default", UnaryOp::Exp, 2},
    {"aten.neg.default", UnaryOp::Neg, 2},         {"aten.rsqrt.default", UnaryOp::Rsqrt, 2},
    {"aten.gelu.default", UnaryOp::GeluErf, 3},    {"aten.clamp.default", UnaryOp::Clamp, 4},
    {"aten.silu.default", UnaryOp::Silu, 2},       {"aten.sqrt.default", UnaryOp::Sqrt, 2},
    {"aten.abs.default", UnaryOp::Abs, 2},         {"aten.hardtanh.default", UnaryOp::Clamp, 4},
    {"aten.cos.default", UnaryOp::Cos, 2},         {"aten.sin.default", UnaryOp::Sin, 2},
    {"aten.round.default", UnaryOp::Round, 2},     {"aten.log10.default", UnaryOp::Log10, 2},
    {"aten.hardswish.default", UnaryOp::Hardswish, 2}, {"aten.hardshrink.default", UnaryOp::Hardshrink, 3},
    {"aten.leaky_relu.default", UnaryOp::LeakyRelu, 3},
};

bool takes_number(UnaryOp op) { return op == UnaryOp::LeakyRelu || op == UnaryOp::Hardshrink; }

void check(const UnaryDef& def, const OpArgs& args) {
  args.expect_count(def.arg_count);
  const Tensor& x = args.tensor(0, {DType::F32});
  const Tensor& out = args.tensor(def.arg_count - 1, {DType::F32});
  if (out.max_dims != x.max_dims) {
    args.fail(def.arg_count - 1, "expected shape " + dims_string(x.max_dims) + ", got " + dims_string(out.max_dims));
  }
  if (def.op == UnaryOp::GeluErf && !args.is_null(1)) {
    const auto* mode = std::get_if<std::string>(&args.value(1));
    if (mode == nullptr || (*mode != "none" && *mode != "tanh")) args.fail(1, "expected approximate='none' or 'tanh'");
  }
  if (def.op == UnaryOp::Clamp) {
    if (!args.is_null(1)) args.number(1);
    if (!args.is_null(2)) args.number(2);
  }
  if (takes_number(def.op) && !args.is_null(1)) args.number(1);
}

void lower(const UnaryDef& def, OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId x = ctx.arg(0), out = ctx.arg(def.arg_count - 1);
  UnaryOp op = def.op;
  if (op == UnaryOp::GeluErf && !args.is_null(1) && std::get<std::string>(args.value(1)) == "tanh") {
    op = UnaryOp::GeluTanh;
  }
  UnaryParams base;
  if (op == UnaryOp::Clamp) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    base.lo = args.is_null(1) ? -inf : static_cast<float>(args.number(1));
    base.hi = args.is_null(2) ? inf : static_cast<float>(args.number(2));
  }
  if (takes_number(op)) {
    // PyTorch's defaults when the exporter leaves them out.
    const float fallback = op == UnaryOp::LeakyRelu ? 0.01f : 0.5f;
    base.lo = args.is_null(1) ? fallback : static_cast<float>(args.number(1));
  }
  const bool vec4 = numel(ctx.max_dims(x)) % 4 == 0;
  const auto& pipeline = ctx.pipeline("elementwise/unary.wgsl", vec4 ? "main_vec4" : "main_scalar",
                                      {{"WG", kWorkgroup}, {"OP", static_cast<double>(op)}});
  const UniformId u = ctx.uniform(sizeof(UnaryParams));
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({x}, [=](ResizeContext& r) {
    r.set_dims(out, r.dims(x));
    UnaryParams p = base;
    const uint64_t n = numel(r.dims(x));
    p.count = static_cast<uint32_t>(vec4 ? gpu::div_up(n, 4) : n);
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.count, kWorkgroup)));
  });
}

}  // namespace

void register_unary(OpRegistry& registry) {
  for (const UnaryDef& def : kUnaryOps) {
    registry.add(def.name, {[&def](const OpArgs& a) { check(def, a); }, [&def](OpContext& c) { lower(def, c); }});
  }
}

}  // namespace wgrt::ops
