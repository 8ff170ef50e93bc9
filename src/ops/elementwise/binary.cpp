#include "ops/elementwise/binary.h"

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/shapes.h"
#include "ops/elementwise/typed.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;
constexpr size_t kMaxRank = 8;

// Argument layout: add/sub are (a, b, alpha, out); mul, div and wgrt.swiglu are (a, b, out).
bool has_alpha(BinaryOp op) { return op == BinaryOp::Add || op == BinaryOp::Sub; }

// add/sub/mul/div over operands that are not all f32 (integers) run on
// typed.wgsl; this file's kernels are f32 only.
bool forwards_to_typed(BinaryOp op, DType a, DType b) {
  return op != BinaryOp::SiluMul && (a != DType::F32 || b != DType::F32);
}

void check(BinaryOp op, const char* name, const OpArgs& args) {
  args.expect_count(has_alpha(op) ? 4 : 3);
  if (forwards_to_typed(op, args.tensor(0).dtype, args.tensor(1).dtype)) {
    check_typed_arith(name, args);
    return;
  }
  const Tensor& a = args.tensor(0, {DType::F32});
  const Tensor& b = args.tensor(1, {DType::F32});
  const Tensor& out = args.tensor(args.size() - 1, {DType::F32});
  if (has_alpha(op) && !args.is_null(2)) args.number(2);
  const auto shape = broadcast_shapes(a.max_dims, b.max_dims);
  if (!shape) {
    args.fail(1, "shape " + dims_string(b.max_dims) + " does not broadcast with argument 0's " + dims_string(a.max_dims));
  }
  if (shape->size() > kMaxRank) args.fail(args.size() - 1, "rank above " + std::to_string(kMaxRank));
  if (*shape != out.max_dims) {
    args.fail(args.size() - 1, "expected shape " + dims_string(*shape) + ", got " + dims_string(out.max_dims));
  }
}

void lower(BinaryOp op, const char* name, OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId a = ctx.arg(0), b = ctx.arg(1), out = ctx.arg(args.size() - 1);
  if (forwards_to_typed(op, ctx.tensor_info(a).dtype, ctx.tensor_info(b).dtype)) {
    lower_typed_arith(name, ctx);
    return;
  }
  const float alpha = has_alpha(op) && !args.is_null(2) ? static_cast<float>(args.number(2)) : 1.0f;
  // Same maximum shapes resize together, so the flat paths stay valid; vec4
  // needs buffers sized to whole vec4s, which the maximum shape decides.
  const bool same = ctx.max_dims(a) == ctx.max_dims(b);
  const bool vec4 = same && numel(ctx.max_dims(out)) % 4 == 0;
  const char* entry = !same ? "main_broadcast" : vec4 ? "main_vec4" : "main_scalar";
  const auto& pipeline = ctx.pipeline("elementwise/binary.wgsl", entry,
                                      {{"WG", kWorkgroup}, {"OP", static_cast<double>(op)}});
  const UniformId u = ctx.uniform(sizeof(BinaryParams));
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(a), ctx.tensor(b), ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({a, b}, [=](ResizeContext& r) {
    const auto shape = broadcast_shapes(r.dims(a), r.dims(b));
    if (!shape || (same && r.dims(a) != r.dims(b))) {
      throw Error(ErrorCode::InvalidArgument, "binary op: live shapes " + dims_string(r.dims(a)) + " and " +
                                                  dims_string(r.dims(b)) + " do not match");
    }
    r.set_dims(out, *shape);
    BinaryParams p;
    const uint64_t n = numel(*shape);
    p.count = static_cast<uint32_t>(vec4 ? gpu::div_up(n, 4) : n);
    p.alpha = alpha;
    p.rank = static_cast<uint32_t>(shape->size());
    const auto sa = broadcast_strides(r.dims(a), *shape), sb = broadcast_strides(r.dims(b), *shape);
    for (size_t i = 0; i < shape->size(); ++i) {
      p.out_dims[i] = static_cast<uint32_t>((*shape)[i]);
      p.a_strides[i] = sa[i];
      p.b_strides[i] = sb[i];
    }
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.count, kWorkgroup)));
  });
}

}  // namespace

void register_binary(OpRegistry& registry) {
  const std::pair<const char*, BinaryOp> ops[] = {
      {"aten.add.Tensor", BinaryOp::Add},
      {"aten.sub.Tensor", BinaryOp::Sub},
      {"aten.mul.Tensor", BinaryOp::Mul},
      {"aten.div.Tensor", BinaryOp::Div},
      // (gate, up, out): silu(gate) * up, the fused SwiGLU activation: wgrt's
      // own (GGUF graphs), and the partitioner's fusion of sigmoid/mul/mul in
      // ExecuTorch releases after 1.5.1.
      {"wgrt.swiglu", BinaryOp::SiluMul},
      {"et_vk.swiglu.default", BinaryOp::SiluMul},
  };
  for (const auto& [name, op] : ops) {
    registry.add(name, {[op = op, name = name](const OpArgs& a) { check(op, name, a); },
                        [op = op, name = name](OpContext& c) { lower(op, name, c); }, false,
                        nullptr, op == BinaryOp::SiluMul ? "f32" : "f32, i32, i64"});
  }
}

}  // namespace wgrt::ops
