// et_vk.fused_ce.default (logits f32 [M, V], labels int [M], n_valid,
// [loss f32 (one element), dlogits f32 [M, V]]): cross-entropy and its
// gradient for on-device training (fused_ce.wgsl has the math). Two
// dispatches: the rows, then the loss as the sum of their terms. M follows
// the live logits.
#include <cmath>

#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/register_ops.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;

struct CeParams {
  uint32_t m = 0, v = 0;
  float n_valid = 0;
  uint32_t pad = 0;
};
static_assert(sizeof(CeParams) == 16, "must match Params in fused_ce.wgsl and fused_ce_total.wgsl");

std::pair<ValueId, ValueId> outputs(const OpArgs& args) {
  const ValueList& list = args.value_list(3);
  if (list.items.size() != 2) args.fail(3, "expected [loss, dlogits]");
  return {list.items[0], list.items[1]};
}

void check(const OpArgs& args) {
  args.expect_count(4);
  const Tensor& logits = args.tensor(0, {DType::F32});
  args.expect_rank(0, 2);
  const Tensor& labels = args.tensor(1, {DType::I64, DType::I32});
  if (labels.max_dims != Dims{logits.max_dims[0]}) {
    args.fail(1, "expected labels [" + std::to_string(logits.max_dims[0]) + "], got " + dims_string(labels.max_dims));
  }
  const double n_valid = args.number(2);
  if (!std::isfinite(static_cast<float>(n_valid)) || static_cast<float>(n_valid) == 0) {
    args.fail(2, "n_valid " + std::to_string(n_valid) + " must be finite and non-zero");
  }
  // Not a structured binding: clang 15 (the sanitizer build) cannot capture one.
  const auto out = outputs(args);
  const Tensor& loss = args.graph().tensor(std::get<0>(out));
  const Tensor& dlogits = args.graph().tensor(std::get<1>(out));
  if (loss.dtype != DType::F32 || numel(loss.max_dims) != 1) {
    args.fail(3, "expected an f32 loss of one element, got " + std::string(dtype_name(loss.dtype)) + " " +
                     dims_string(loss.max_dims));
  }
  if (dlogits.dtype != DType::F32 || dlogits.max_dims != logits.max_dims) {
    args.fail(3, "expected f32 dlogits " + dims_string(logits.max_dims) + ", got " +
                     std::string(dtype_name(dlogits.dtype)) + " " + dims_string(dlogits.max_dims));
  }
}

void lower(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId logits = ctx.arg(0), labels = ctx.arg(1);
  const auto out = outputs(args);
  const ValueId loss = std::get<0>(out), dlogits = std::get<1>(out);
  const int64_t rows = ctx.max_dims(logits)[0];
  const gpu::BufferBinding terms = ctx.graph_scratch(uint64_t(std::max<int64_t>(rows, 1)) * 4, "fused_ce row terms");
  const UniformId u = ctx.uniform(sizeof(CeParams));
  const DispatchId d_rows =
      ctx.dispatch(ctx.pipeline("training/fused_ce.wgsl", "main", {{"WG", kWorkgroup}}),
                   {ctx.tensor(logits), ctx.tensor(labels), ctx.tensor(dlogits), terms, ctx.uniform_binding(u)});
  const DispatchId d_total = ctx.dispatch(ctx.pipeline("training/fused_ce_total.wgsl", "main"),
                                          {terms, ctx.tensor(loss), ctx.uniform_binding(u)});
  CeParams base;
  base.v = static_cast<uint32_t>(ctx.max_dims(logits)[1]);
  base.n_valid = static_cast<float>(args.number(2));
  ctx.on_resize({logits, labels}, [=](ResizeContext& r) {
    CeParams p = base;
    p.m = static_cast<uint32_t>(r.dims(logits)[0]);
    r.set_dims(dlogits, r.dims(logits));
    r.write_uniform(u, p);
    r.set_workgroups(d_rows, r.fold(p.m));
    r.set_workgroups(d_total, r.fold(1));
  });
}

}  // namespace

void register_fused_ce(OpRegistry& registry) {
  registry.add("et_vk.fused_ce.default", {check, lower, false, nullptr, "f32 logits, int labels -> f32"});
}

}  // namespace wgrt::ops
