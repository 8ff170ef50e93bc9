// et_vk.apply_rotary_emb_hf.default (xq [B, S, H, D], xk [B, S, Hk, D],
// freqs_cos [max_seq, rot], freqs_sin, start_pos, [xq_out, xk_out]) and
// et_vk.apply_rotary_emb_interleaved.default (x [B, N, C], freqs_cis with
// N * C elements, out) on rope_variants.wgsl. f32; S (and start_pos, a SymInt
// or Int) may change at run time; rows start_pos + S must fit the tables.
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/register_ops.h"
#include "ops/rope/rope_args.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;  // WG in rope/rope_variants.wgsl

struct RopeVariantParams {
  uint32_t q_count = 0, k_count = 0, d = 0, rot = 0;
  uint32_t seq = 0, q_heads = 0, k_heads = 0, start = 0;
};
static_assert(sizeof(RopeVariantParams) == 32, "must match Params in rope_variants.wgsl");

std::pair<ValueId, ValueId> hf_outputs(const OpArgs& args) {
  const ValueList& outs = args.value_list(5);
  if (outs.items.size() != 2) args.fail(5, "expected [xq_out, xk_out], got " + std::to_string(outs.items.size()) + " values");
  return {outs.items[0], outs.items[1]};
}

void check_hf(const OpArgs& args) {
  args.expect_count(6);
  check_rope_operands(args);
  const Dims& q = args.tensor(0).max_dims;
  const Dims& k = args.tensor(1).max_dims;
  const Dims& cos = args.tensor(2).max_dims;
  if (k[0] != q[0] || k[1] != q[1] || k[3] != q[3]) args.fail(1, "shape " + dims_string(k) + " does not match q's " + dims_string(q));
  if (cos[1] > q[3] || cos[1] % 2 != 0) args.fail(2, "rotary dim " + std::to_string(cos[1]) + " must be even and at most " + std::to_string(q[3]));
  if (args.tensor(3).max_dims != cos) args.fail(3, "expected the shape of freqs_cos " + dims_string(cos));
  args.integer(4);
  const auto [qo, ko] = hf_outputs(args);
  if (args.graph().tensor(qo).max_dims != q || args.graph().tensor(ko).max_dims != k) args.fail(5, "outputs must have the inputs' shapes");
}

void lower_hf(OpContext& ctx) {
  const OpArgs& args = ctx.args();
  const ValueId q = ctx.arg(0), k = ctx.arg(1), start = ctx.arg(4);
  const auto [qo, ko] = hf_outputs(args);
  const Dims table = ctx.max_dims(ctx.arg(2));
  const UniformId u = ctx.uniform(sizeof(RopeVariantParams));
  const DispatchId d = ctx.dispatch(ctx.pipeline("rope/rope_variants.wgsl", "main_hf", {{"WG", kWorkgroup}}),
                                    {ctx.tensor(q), ctx.tensor(k), ctx.tensor(ctx.arg(2)), ctx.tensor(ctx.arg(3)),
                                     ctx.tensor(qo), ctx.tensor(ko), ctx.uniform_binding(u)});
  std::vector<ValueId> deps = {q, k};
  if (args.is_symint(4)) deps.push_back(start);
  ctx.on_resize(deps, [=, qo = qo, ko = ko](ResizeContext& r) {
    const Dims& qd = r.dims(q);
    const Dims& kd = r.dims(k);
    const int64_t pos = r.integer(start);
    if (pos < 0 || pos > table[0] - qd[1]) {  // not pos + S: a hostile position near INT64_MAX wraps
      throw Error(ErrorCode::InvalidArgument, "apply_rotary_emb_hf: positions " + std::to_string(pos) + " + " +
                                                  std::to_string(qd[1]) + " pass the table's " + std::to_string(table[0]) + " rows");
    }
    r.set_dims(qo, qd);
    r.set_dims(ko, kd);
    RopeVariantParams p;
    p.q_count = uint32_t(numel(qd));
    p.k_count = uint32_t(numel(kd));
    p.d = uint32_t(qd[3]);
    p.rot = uint32_t(table[1]);
    p.seq = uint32_t(qd[1]);
    p.q_heads = uint32_t(qd[2]);
    p.k_heads = uint32_t(kd[2]);
    p.start = uint32_t(pos);
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(uint64_t(p.q_count) + p.k_count, kWorkgroup)));
  });
}

void check_interleaved(const OpArgs& args) {
  args.expect_count(3);
  const Tensor& x = args.tensor(0, {DType::F32});
  args.expect_rank(0, 3);
  if (x.max_dims[2] % 2 != 0) args.fail(0, "channels " + std::to_string(x.max_dims[2]) + " are not (real, imag) pairs");
  if (numel(args.tensor(1, {DType::F32}).max_dims) != x.max_dims[1] * x.max_dims[2]) {
    args.fail(1, "expected N * C = " + std::to_string(x.max_dims[1] * x.max_dims[2]) + " elements, got " +
                     dims_string(args.tensor(1).max_dims));
  }
  if (args.tensor(2, {DType::F32}).max_dims != x.max_dims) args.fail(2, "expected shape " + dims_string(x.max_dims));
}

void lower_interleaved(OpContext& ctx) {
  const ValueId x = ctx.arg(0), out = ctx.arg(2);
  const UniformId u = ctx.uniform(sizeof(RopeVariantParams));
  const DispatchId d = ctx.dispatch(ctx.pipeline("rope/rope_variants.wgsl", "main_interleaved", {{"WG", kWorkgroup}}),
                                    {ctx.tensor(x), ctx.tensor(ctx.arg(1)), ctx.tensor(out), ctx.uniform_binding(u)});
  ctx.on_resize({x}, [=](ResizeContext& r) {
    const Dims& xd = r.dims(x);
    r.set_dims(out, xd);
    RopeVariantParams p;
    p.q_count = uint32_t(numel(xd));
    p.d = uint32_t(xd[2]);
    p.seq = uint32_t(xd[1]);
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(p.q_count / 2, kWorkgroup)));
  });
}

}  // namespace

void register_rope_variants(OpRegistry& registry) {
  registry.add("et_vk.apply_rotary_emb_hf.default", {check_hf, lower_hf});
  registry.add("et_vk.apply_rotary_emb_interleaved.default", {check_interleaved, lower_interleaved});
}

}  // namespace wgrt::ops
