// Elementwise ops whose operands or results are not all f32, on typed.wgsl:
//   eq/lt/le/gt/ge.Tensor (a, b, out bool), eq/ne/lt/le/gt/ge.Scalar (a, scalar, out bool)
//   logical_and/or (a, b, out bool), logical_not (a, out bool)
//   bitwise_and/or.Tensor (a, b, out), bitwise_not (a, out): integers or bools
//   where.self (cond bool, a, b, out)
//   pow.Tensor_Tensor (a, b, out), pow.Tensor_Scalar (a, scalar, out): f32
//   minimum (a, b, out), div.Tensor_mode (a, b, 'trunc' | 'floor', out): f32 or integers
//   add/sub.Tensor (a, b, alpha, out), mul/div.Tensor (a, b, out) when an
//   operand is not f32 (binary.cpp takes the all-f32 case and forwards these
//   here): integers add, subtract and multiply as i32; div is true division.
//   dtype conversions and plain copies: _to_copy (x, dtype, layout, device,
//   pin_memory, non_blocking, memory_format, out), dim_order_ops'
//   _to_dim_order_copy (x, dtype, layout, device, pin_memory, non_blocking,
//   dim_order, out) and _clone_dim_order (x, non_blocking, dim_order, out),
//   alias_copy (x, out), copy (self, src, non_blocking, out: src's values
//   broadcast to self's shape).
//   wgrt keeps every tensor contiguous, so a dim order only has to be a
//   permutation; f32 -> integer truncates, anything -> bool tests != 0.
// Operands broadcast (numpy rules) to the output; every dim may change at run time.
#include <algorithm>
#include <limits>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/shapes.h"
#include "ops/elementwise/typed.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;
constexpr size_t kMaxRank = 8;

// Mirrors `Params` in typed.wgsl.
struct TypedParams {
  uint32_t count = 0, rank = 0;
  float scalar_f = 0;
  int32_t scalar_i = 0;
  uint32_t out_dims[kMaxRank] = {}, a_strides[kMaxRank] = {}, b_strides[kMaxRank] = {}, c_strides[kMaxRank] = {};
};
static_assert(sizeof(TypedParams) == 144, "must match Params in typed.wgsl");

// OP codes of typed.wgsl.
enum class TypedOp : uint32_t {
  Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalNot, BitwiseAnd, BitwiseOr, BitwiseNot, Where, Pow,
  Minimum, DivTrunc, DivFloor, Convert, Add, Sub, Mul, Div
};

enum class Operands { Float, Numeric, Any, Integer };  // which tensor dtypes the op takes

struct TypedDef {
  const char* name;
  TypedOp op;
  size_t tensors;         // tensor operands, leading (after `first`)
  bool scalar;            // then one scalar operand
  bool mode;              // then div's rounding mode
  Operands operands;
  const char* dtypes;     // for `wgrt ops`
  size_t extra = 0;       // then arguments the op does not need (conversions)
  size_t first = 0;       // the first operand's argument index
  int dim_order = -1;     // the dim_order argument, if any
  int shape_of = -1;      // a tensor argument whose shape the output has (copy's self), the operands broadcasting to it
  bool alpha = false;     // the scalar is add/sub's alpha: it may be None (1)
};

constexpr const char* kConvertTypes = "f16, f32, i32, i64, bool -> f16, f32, i32, i64, bool";
constexpr const char* kNumericTypes = "f32, i32, i64";

constexpr TypedDef kOps[] = {
    {"aten.eq.Tensor", TypedOp::Eq, 2, false, false, Operands::Any, "f32, i32, i64, bool -> bool"},
    {"aten.lt.Tensor", TypedOp::Lt, 2, false, false, Operands::Any, "f32, i32, i64, bool -> bool"},
    {"aten.le.Tensor", TypedOp::Le, 2, false, false, Operands::Any, "f32, i32, i64, bool -> bool"},
    {"aten.gt.Tensor", TypedOp::Gt, 2, false, false, Operands::Any, "f32, i32, i64, bool -> bool"},
    {"aten.ge.Tensor", TypedOp::Ge, 2, false, false, Operands::Any, "f32, i32, i64, bool -> bool"},
    {"aten.eq.Scalar", TypedOp::Eq, 1, true, false, Operands::Any, "f32, i32, i64, bool -> bool"},
    {"aten.ne.Scalar", TypedOp::Ne, 1, true, false, Operands::Any, "f32, i32, i64, bool -> bool"},
    {"aten.lt.Scalar", TypedOp::Lt, 1, true, false, Operands::Any, "f32, i32, i64, bool -> bool"},
    {"aten.le.Scalar", TypedOp::Le, 1, true, false, Operands::Any, "f32, i32, i64, bool -> bool"},
    {"aten.gt.Scalar", TypedOp::Gt, 1, true, false, Operands::Any, "f32, i32, i64, bool -> bool"},
    {"aten.ge.Scalar", TypedOp::Ge, 1, true, false, Operands::Any, "f32, i32, i64, bool -> bool"},
    {"aten.logical_and.default", TypedOp::LogicalAnd, 2, false, false, Operands::Any, "f32, i32, i64, bool -> bool"},
    {"aten.logical_or.default", TypedOp::LogicalOr, 2, false, false, Operands::Any, "f32, i32, i64, bool -> bool"},
    {"aten.logical_not.default", TypedOp::LogicalNot, 1, false, false, Operands::Any, "f32, i32, i64, bool -> bool"},
    {"aten.bitwise_and.Tensor", TypedOp::BitwiseAnd, 2, false, false, Operands::Integer, "i32, i64, bool"},
    {"aten.bitwise_or.Tensor", TypedOp::BitwiseOr, 2, false, false, Operands::Integer, "i32, i64, bool"},
    {"aten.bitwise_not.default", TypedOp::BitwiseNot, 1, false, false, Operands::Integer, "i32, i64, bool"},
    {"aten.where.self", TypedOp::Where, 3, false, false, Operands::Any, "bool condition; f32, i32, i64, bool values"},
    {"aten.pow.Tensor_Tensor", TypedOp::Pow, 2, false, false, Operands::Numeric, kNumericTypes},
    {"aten.pow.Tensor_Scalar", TypedOp::Pow, 1, true, false, Operands::Numeric, kNumericTypes},
    {"aten.minimum.default", TypedOp::Minimum, 2, false, false, Operands::Numeric, kNumericTypes},
    {"aten.div.Tensor_mode", TypedOp::DivTrunc, 2, false, true, Operands::Numeric, kNumericTypes},
    {"aten._to_copy.default", TypedOp::Convert, 1, false, false, Operands::Any, kConvertTypes, 6},
    {"dim_order_ops._to_dim_order_copy.default", TypedOp::Convert, 1, false, false, Operands::Any, kConvertTypes, 6, 0, 6},
    {"dim_order_ops._clone_dim_order.default", TypedOp::Convert, 1, false, false, Operands::Any, kConvertTypes, 2, 0, 2},
    {"aten.alias_copy.default", TypedOp::Convert, 1, false, false, Operands::Any, kConvertTypes},
    {"aten.copy.default", TypedOp::Convert, 1, false, false, Operands::Any, kConvertTypes, 1, 1, -1, 0},
    // (x, out): the edges of an f16 program computed in f32 (ops/passes/widen_f16.h).
    {"wgrt.convert_dtype", TypedOp::Convert, 1, false, false, Operands::Any, kConvertTypes},
};

// Registered by binary.cpp, which forwards operands that are not all f32.
constexpr TypedDef kArith[] = {
    {"aten.add.Tensor", TypedOp::Add, 2, true, false, Operands::Numeric, kNumericTypes, 0, 0, -1, -1, true},
    {"aten.sub.Tensor", TypedOp::Sub, 2, true, false, Operands::Numeric, kNumericTypes, 0, 0, -1, -1, true},
    {"aten.mul.Tensor", TypedOp::Mul, 2, false, false, Operands::Numeric, kNumericTypes},
    {"aten.div.Tensor", TypedOp::Div, 2, false, false, Operands::Numeric, kNumericTypes},
};

uint32_t type_code(DType t) {
  switch (t) {
    case DType::F32: return 0;
    case DType::I32: case DType::I64: return 1;
    case DType::F16: return 4;
    default: return 2;  // Bool
  }
}

size_t out_arg(const TypedDef& def) {
  return def.first + def.tensors + (def.scalar ? 1 : 0) + (def.mode ? 1 : 0) + def.extra;
}

size_t mode_arg(const TypedDef& def) { return def.first + def.tensors + (def.scalar ? 1 : 0); }

bool is_integer(DType t) { return t == DType::I32 || t == DType::I64 || t == DType::Bool; }

void check(const TypedDef& def, const OpArgs& args) {
  args.expect_count(out_arg(def) + 1);
  std::optional<Dims> shape = Dims{};
  // Conversions also read and write f16 (packed two to a word).
  const bool convert = def.op == TypedOp::Convert;
  for (size_t i = def.first; i < def.first + def.tensors; ++i) {
    const Tensor& t = convert                             ? args.tensor(i, {DType::F16, DType::F32, DType::I32, DType::I64, DType::Bool})
                      : def.operands == Operands::Float   ? args.tensor(i, {DType::F32})
                      : def.operands == Operands::Numeric ? args.tensor(i, {DType::F32, DType::I32, DType::I64})
                      : def.operands == Operands::Integer ? args.tensor(i, {DType::I32, DType::I64, DType::Bool})
                                                          : args.tensor(i, {DType::F32, DType::I32, DType::I64, DType::Bool});
    if (def.op == TypedOp::Where && i == 0 && t.dtype != DType::Bool) {
      args.fail(0, "expected a bool condition, got " + std::string(dtype_name(t.dtype)));
    }
    shape = broadcast_shapes(*shape, t.max_dims);
    if (!shape) args.fail(i, "shape " + dims_string(t.max_dims) + " does not broadcast with the other operands");
  }
  if (def.shape_of >= 0) {
    const Dims& target = args.tensor(size_t(def.shape_of)).max_dims;
    if (broadcast_shapes(target, *shape) != target) {
      args.fail(def.first, "shape " + dims_string(*shape) + " does not broadcast to " + dims_string(target));
    }
    shape = target;
  }
  if (shape->size() > kMaxRank) args.fail(out_arg(def), "rank above " + std::to_string(kMaxRank));
  if (def.dim_order >= 0 && !args.is_null(size_t(def.dim_order))) {
    const IntList& order = args.int_list(size_t(def.dim_order));
    std::vector<bool> seen(shape->size(), false);
    bool ok = order.size() == shape->size();
    for (int64_t d : order) {
      ok = ok && d >= 0 && size_t(d) < seen.size() && !seen[size_t(d)];
      if (ok) seen[size_t(d)] = true;
    }
    if (!ok) args.fail(size_t(def.dim_order), "dim_order " + dims_string(order) + " is not a permutation of " +
                                                  std::to_string(shape->size()) + " dims");
  }
  if (def.scalar && !(def.alpha && args.is_null(def.tensors))) args.number(def.tensors);
  if (def.mode) {
    // True division (None) is aten.div.Tensor; this overload only rounds.
    const size_t m = mode_arg(def);
    if (args.is_null(m)) args.fail(m, "rounding_mode None: expected 'trunc' or 'floor'");
    const auto* mode = std::get_if<std::string>(&args.value(m));
    if (mode == nullptr || (*mode != "trunc" && *mode != "floor")) {
      args.fail(m, "rounding_mode: expected 'trunc' or 'floor'");
    }
  }
  const Tensor& out = convert ? args.tensor(out_arg(def), {DType::F16, DType::F32, DType::I32, DType::I64, DType::Bool})
                              : args.tensor(out_arg(def), {DType::F32, DType::I32, DType::I64, DType::Bool});
  if (out.max_dims != *shape) {
    args.fail(out_arg(def), "expected shape " + dims_string(*shape) + ", got " + dims_string(out.max_dims));
  }
  if ((def.operands == Operands::Float || def.op == TypedOp::Div) && out.dtype != DType::F32) {
    args.fail(out_arg(def), "expected f32, got " + std::string(dtype_name(out.dtype)));
  }
}

void lower(const TypedDef& def, OpContext& ctx) {
  const OpArgs& args = ctx.args();
  std::vector<ValueId> ins;
  for (size_t i = def.first; i < def.first + def.tensors; ++i) ins.push_back(ctx.arg(i));
  const ValueId out = ctx.arg(out_arg(def));
  uint32_t codes[3] = {3, 3, 3};
  bool int_math = true;
  for (size_t i = 0; i < ins.size(); ++i) {
    codes[i] = type_code(ctx.tensor_info(ins[i]).dtype);
    int_math &= is_integer(ctx.tensor_info(ins[i]).dtype);
  }
  TypedParams base;
  if (def.alpha && args.is_null(def.tensors)) {
    base.scalar_f = 1.0f;
    base.scalar_i = 1;
  } else if (def.scalar) {
    const Value& s = args.value(def.tensors);
    int_math &= !std::holds_alternative<double>(s);
    const double v = args.number(def.tensors);
    base.scalar_f = static_cast<float>(v);
    // The integer form is used only for an integer scalar (int math); a float
    // scalar such as -inf never reaches it.
    if (!std::holds_alternative<double>(s)) {
      if (v < double(std::numeric_limits<int32_t>::min()) || v > double(std::numeric_limits<int32_t>::max())) {
        args.unsupported(def.tensors, "integer scalar " + std::to_string(int64_t(v)) + " is outside int32");
      }
      base.scalar_i = static_cast<int32_t>(v);
    }
  }
  // where's condition is only tested for truth: its type does not decide the math.
  if (def.op == TypedOp::Where) int_math = is_integer(ctx.tensor_info(ins[1]).dtype) && is_integer(ctx.tensor_info(ins[2]).dtype);
  if (def.operands == Operands::Float) int_math = false;
  // Arithmetic is exact i32 math only when the result is an integer too (true
  // division, and a float result of mixed operands, compute in f32).
  if (def.operands == Operands::Numeric && (def.op == TypedOp::Div || !is_integer(ctx.tensor_info(out).dtype))) {
    int_math = false;
  }
  TypedOp op = def.op;
  if (def.mode) {
    op = std::get<std::string>(args.value(mode_arg(def))) == "floor" ? TypedOp::DivFloor : TypedOp::DivTrunc;
  }
  const auto& pipeline = ctx.pipeline("elementwise/typed.wgsl", "main",
      {{"WG", kWorkgroup}, {"OP", double(op)}, {"A_TYPE", double(codes[0])}, {"B_TYPE", double(codes[1])},
       {"C_TYPE", double(codes[2])}, {"OUT_TYPE", double(type_code(ctx.tensor_info(out).dtype))},
       {"INT_MATH", int_math ? 1.0 : 0.0}});
  const UniformId u = ctx.uniform(sizeof(TypedParams));
  // Absent operands bind the first input (never read).
  auto operand = [&](size_t i) { return ctx.tensor(ins[std::min(i, ins.size() - 1)]); };
  const DispatchId d =
      ctx.dispatch(pipeline, {operand(0), operand(1), operand(2), ctx.tensor(out), ctx.uniform_binding(u)});
  // The output's shape: the operands' broadcast, or the shape_of tensor's.
  std::vector<ValueId> shaped = ins;
  if (def.shape_of >= 0) shaped.push_back(ctx.arg(size_t(def.shape_of)));
  ctx.on_resize(shaped, [=](ResizeContext& r) {
    std::optional<Dims> shape = Dims{};
    for (ValueId in : shaped) {
      shape = broadcast_shapes(*shape, r.dims(in));
      if (!shape) throw Error(ErrorCode::InvalidArgument, std::string(def.name) + ": live shapes do not broadcast");
    }
    if (def.shape_of >= 0 && *shape != r.dims(shaped.back())) {
      throw Error(ErrorCode::InvalidArgument, std::string(def.name) + ": live shape " + dims_string(r.dims(ins[0])) +
                                                  " does not broadcast to " + dims_string(r.dims(shaped.back())));
    }
    r.set_dims(out, *shape);
    TypedParams p = base;
    p.count = static_cast<uint32_t>(numel(*shape));
    p.rank = static_cast<uint32_t>(shape->size());
    uint32_t* strides[3] = {p.a_strides, p.b_strides, p.c_strides};
    for (size_t i = 0; i < ins.size(); ++i) {
      const auto s = broadcast_strides(r.dims(ins[i]), *shape);
      std::copy(s.begin(), s.end(), strides[i]);
    }
    for (size_t i = 0; i < shape->size(); ++i) p.out_dims[i] = static_cast<uint32_t>((*shape)[i]);
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(gpu::div_up(p.count, 4), kWorkgroup)));
  });
}

}  // namespace

namespace {

const TypedDef& arith_def(std::string_view name) {
  for (const TypedDef& def : kArith) {
    if (name == def.name) return def;
  }
  throw Error(ErrorCode::Internal, "no typed arithmetic op " + std::string(name));
}

}  // namespace

void check_typed_arith(std::string_view name, const OpArgs& args) { check(arith_def(name), args); }

void lower_typed_arith(std::string_view name, OpContext& ctx) { lower(arith_def(name), ctx); }

void register_typed(OpRegistry& registry) {
  for (const TypedDef& def : kOps) {
    registry.add(def.name,
                 {[&def](const OpArgs& a) { check(def, a); }, [&def](OpContext& c) { lower(def, c); }, false, nullptr, def.dtypes});
  }
}

}  // namespace wgrt::ops
