// Reductions over any dims, one skeleton (reduce.wgsl):
//   aten.sum.dim_IntList (x, dims or Null, keepdim, dtype or Null, out)
//   aten.mean.dim        (x, dims or Null, keepdim, dtype or Null, out)
//   aten.amax.default / aten.amin.default (x, dims, keepdim, out)
//   aten.argmax.default / aten.argmin.default (x, dim or Null, keepdim, out i64)
// An empty or Null dim list reduces every dim (argmax/argmin with Null: the
// flat index). x is f32; every dim may change at run time.
#include <algorithm>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/shapes.h"
#include "ops/register_ops.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;
constexpr size_t kMaxRank = 8;

// Mirrors `Params` in reduce.wgsl.
struct ReduceParams {
  uint32_t outputs = 0, kept_rank = 0, red_rank = 0, red_count = 0;
  uint32_t kept_dims[kMaxRank] = {}, kept_strides[kMaxRank] = {};
  uint32_t red_dims[kMaxRank] = {}, red_strides[kMaxRank] = {};
};
static_assert(sizeof(ReduceParams) == 144, "must match Params in reduce.wgsl");

enum class Reduce : uint32_t { Sum, Mean, Max, Min, ArgMax, ArgMin };

bool is_arg(Reduce op) { return op == Reduce::ArgMax || op == Reduce::ArgMin; }
size_t out_arg(Reduce op) { return op == Reduce::Sum || op == Reduce::Mean ? 4 : 3; }

// The reduced dims, sorted, as a mask over x's dims.
std::vector<bool> reduced_mask(const OpArgs& args, Reduce op, size_t rank) {
  std::vector<bool> mask(rank, false);
  std::vector<int64_t> dims;
  if (args.is_null(1)) {
    // every dim
  } else if (is_arg(op)) {
    dims.push_back(args.integer(1));
  } else {
    dims = args.int_list(1);
  }
  if (dims.empty()) return std::vector<bool>(rank, true);
  for (int64_t d : dims) {
    const auto n = normalize_dim(d, std::max<size_t>(rank, 1));
    if (!n) args.fail(1, "dim " + std::to_string(d) + " is out of range for rank " + std::to_string(rank));
    if (rank == 0) continue;
    if (mask[*n]) args.fail(1, "dim " + std::to_string(d) + " appears twice");
    mask[*n] = true;
  }
  return mask;
}

Dims reduced_dims(const Dims& x, const std::vector<bool>& mask, bool keepdim) {
  Dims out;
  for (size_t d = 0; d < x.size(); ++d) {
    if (!mask[d]) out.push_back(x[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

void check(const OpArgs& args, Reduce op) {
  args.expect_count(out_arg(op) + 1);
  const Tensor& x = args.tensor(0, {DType::F32});
  if (x.max_dims.size() > kMaxRank) args.fail(0, "rank above " + std::to_string(kMaxRank));
  const auto mask = reduced_mask(args, op, x.max_dims.size());
  const bool keepdim = args.boolean(2);
  if (op == Reduce::Sum || op == Reduce::Mean) {
    if (!args.is_null(3)) {
      // A dtype other than f32 (PyTorch's ScalarType 6) would change the output
      // type; f16 (5) is f32 inside an f16 program (ops/passes/widen_f16.h).
      if (args.integer(3) != 6 && args.integer(3) != 5) {
        args.fail(3, "dtype " + std::to_string(args.integer(3)) + ": only float32 (6) or float16 (5) is supported");
      }
    }
  }
  const Tensor& out = is_arg(op) ? args.tensor(out_arg(op), {DType::I64, DType::I32})
                                 : args.tensor(out_arg(op), {DType::F32});
  const Dims want = reduced_dims(x.max_dims, mask, keepdim);
  if (out.max_dims != want) {
    args.fail(out_arg(op), "expected shape " + dims_string(want) + ", got " + dims_string(out.max_dims));
  }
}

void lower(OpContext& ctx, Reduce op) {
  const OpArgs& args = ctx.args();
  const ValueId x = ctx.arg(0), out = ctx.arg(out_arg(op));
  const auto mask = reduced_mask(args, op, ctx.max_dims(x).size());
  const bool keepdim = args.boolean(2);
  const auto& pipeline =
      ctx.pipeline("reduce/reduce.wgsl", "main", {{"WG", kWorkgroup}, {"OP", static_cast<double>(op)}});
  const UniformId u = ctx.uniform(sizeof(ReduceParams));
  const DispatchId d = ctx.dispatch(pipeline, {ctx.tensor(x), ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({x}, [=](ResizeContext& r) {
    const Dims& xd = r.dims(x);
    r.set_dims(out, reduced_dims(xd, mask, keepdim));
    const auto strides = contiguous_strides(xd);
    ReduceParams p;
    uint64_t outputs = 1, count = 1;
    for (size_t i = 0; i < xd.size(); ++i) {
      if (mask[i]) {
        p.red_dims[p.red_rank] = uint32_t(xd[i]);
        p.red_strides[p.red_rank++] = uint32_t(strides[i]);
        count *= uint64_t(xd[i]);
      } else {
        p.kept_dims[p.kept_rank] = uint32_t(xd[i]);
        p.kept_strides[p.kept_rank++] = uint32_t(strides[i]);
        outputs *= uint64_t(xd[i]);
      }
    }
    if (count == 0 && op != Reduce::Sum) {
      throw Error(ErrorCode::InvalidArgument, "reduction over zero elements of a " + dims_string(xd) + " tensor");
    }
    p.outputs = uint32_t(outputs);
    p.red_count = uint32_t(count);
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(outputs));
  });
}

}  // namespace

void register_reduce(OpRegistry& registry) {
  const std::pair<const char*, Reduce> ops[] = {
      {"aten.sum.dim_IntList", Reduce::Sum}, {"aten.mean.dim", Reduce::Mean},    {"aten.amax.default", Reduce::Max},
      {"aten.amin.default", Reduce::Min},    {"aten.argmax.default", Reduce::ArgMax}, {"aten.argmin.default", Reduce::ArgMin},
  };
  for (const auto& [name, op] : ops) {
    registry.add(name, {[op = op](const OpArgs& a) { check(a, op); }, [op = op](OpContext& c) { lower(c, op); }, false, nullptr,
                        is_arg(op) ? "f32 -> i64" : "f32"});
  }
}

}  // namespace wgrt::ops
