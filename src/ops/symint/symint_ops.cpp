// Symbolic-int ops: no dispatches, only hooks that recompute a SymInt from
// live shapes, other ints, or a graph input's host bytes.
//   sym_size.int [tensor, dim, out]
//   add / sub / mul / floordiv [a, b, out] on Ints and SymInts
//   et_vk.select_as_symint.default [x, dim, index, out]: x[index] along dim,
//     read on the host from the graph input x (the Llama input_pos)
#include <cstring>
#include <limits>

#include "ops/common/host_ints.h"
#include "ops/common/shapes.h"
#include "ops/register_ops.h"
#include "graph/op_context.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

void expect_symint_out(const OpArgs& args, size_t i) {
  if (!args.is_symint(i)) {
    args.fail(i, "expected a symint output, got " + std::string(value_kind_name(args.value(i))));
  }
}

void check_sym_size(const OpArgs& args) {
  args.expect_count(3);
  const Dims& dims = args.tensor(0).max_dims;
  if (!normalize_dim(args.integer(1), dims.size())) args.fail(1, "dim out of range for " + dims_string(dims));
  expect_symint_out(args, 2);
}

void lower_sym_size(OpContext& ctx) {
  const ValueId t = ctx.arg(0), out = ctx.arg(2);
  const size_t d = *normalize_dim(ctx.args().integer(1), ctx.max_dims(t).size());
  ctx.on_resize({t}, [=](ResizeContext& r) { r.set_symint(out, r.dims(t)[d]); });
}

enum class Arith { Add, Sub, Mul, FloorDiv };

const char* arith_name(Arith op) {
  switch (op) {
    case Arith::Add: return "add";
    case Arith::Sub: return "sub";
    case Arith::Mul: return "mul";
    case Arith::FloorDiv: return "floordiv";
  }
  return "?";
}

// SymInts come from files and the API: a result past int64 is refused, not
// wrapped (signed overflow is undefined behaviour on the host).
int64_t apply(Arith op, int64_t a, int64_t b) {
  int64_t r = 0;
  bool overflow = false;
  switch (op) {
    case Arith::Add: overflow = __builtin_add_overflow(a, b, &r); break;
    case Arith::Sub: overflow = __builtin_sub_overflow(a, b, &r); break;
    case Arith::Mul: overflow = __builtin_mul_overflow(a, b, &r); break;
    case Arith::FloorDiv: {
      if (b == 0) throw Error(ErrorCode::InvalidArgument, "floordiv: division by zero");
      overflow = a == std::numeric_limits<int64_t>::min() && b == -1;
      if (overflow) break;
      const int64_t q = a / b;
      r = (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;  // Python's floor, not C's truncation
      break;
    }
  }
  if (overflow) {
    throw Error(ErrorCode::InvalidArgument, std::string("symint ") + arith_name(op) + "(" + std::to_string(a) + ", " +
                                                std::to_string(b) + ") overflows int64");
  }
  return r;
}

void check_arith(const OpArgs& args) {
  args.expect_count(3);
  args.integer(0);
  args.integer(1);
  expect_symint_out(args, 2);
}

void lower_arith(Arith op, OpContext& ctx) {
  const ValueId a = ctx.arg(0), b = ctx.arg(1), out = ctx.arg(2);
  ctx.on_resize({a, b}, [=](ResizeContext& r) { r.set_symint(out, apply(op, r.integer(a), r.integer(b))); });
}

void check_select_as_symint(const OpArgs& args) {
  args.expect_count(4);
  const Tensor& x = args.tensor(0, {DType::I64, DType::I32});
  if (!normalize_dim(args.integer(1), x.max_dims.size())) args.fail(1, "dim out of range for " + dims_string(x.max_dims));
  args.integer(2);
  expect_symint_out(args, 3);
}

void lower_select_as_symint(OpContext& ctx) {
  const ValueId x = ctx.arg(0), out = ctx.arg(3);
  const size_t d = *normalize_dim(ctx.args().integer(1), ctx.max_dims(x).size());
  const int64_t index = ctx.args().integer(2);
  const size_t elem = host_size(ctx.tensor_info(x).dtype);
  ctx.watch_input_data(x);
  ctx.on_resize({x}, [=](ResizeContext& r) {
    const auto bytes = r.host_input(x);
    if (bytes.empty()) {  // at load time, or fed from a device buffer: no host value to read
      r.set_symint(out, 0);
      return;
    }
    const Dims& live = r.dims(x);
    const int64_t i = index < 0 ? index + live[d] : index;
    if (i < 0 || i >= live[d]) {
      throw Error(ErrorCode::InvalidArgument, "select_as_symint: index " + std::to_string(index) +
                                                  " out of range for " + dims_string(live));
    }
    // The first element of the selected slice (the others are along dims of size 1).
    const size_t offset = static_cast<size_t>(i * contiguous_strides(live)[d]) * elem;
    const int64_t v = read_host_int(bytes.data() + offset, elem);
    r.set_symint(out, v);
  });
}

}  // namespace

void register_symint(OpRegistry& registry) {
  registry.add("sym_size.int", {check_sym_size, lower_sym_size, false, nullptr, "any tensor -> symint"});
  const std::pair<const char*, Arith> ops[] = {
      {"add", Arith::Add}, {"sub", Arith::Sub}, {"mul", Arith::Mul}, {"floordiv", Arith::FloorDiv}};
  for (const auto& [name, op] : ops) {
    registry.add(name, {check_arith, [op = op](OpContext& c) { lower_arith(op, c); }, false, nullptr, "int, symint"});
  }
  registry.add("et_vk.select_as_symint.default",
               {check_select_as_symint, lower_select_as_symint, false, nullptr, "i32, i64 -> symint"});
}

}  // namespace wgrt::ops
