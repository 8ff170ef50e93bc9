// et_vk.apply_rotary_emb.default (xq, xk, freqs_cos, freqs_sin,
// ValueList[xq_out, xk_out]): RoPE on query and key heads in one dispatch,
// adjacent-pair convention. wgrt.apply_rotary_emb_halves: the same arguments,
// pairs (i, i + D/2) (GGUF models of ggml's NEOX RoPE type). The live S
// comes from xq; freqs must hold at least S live rows (a slice_copy upstream
// gives exactly S).
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/register_ops.h"
#include "ops/rope/rope_args.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 256;

struct RopeParams {
  uint32_t q_pairs = 0;
  uint32_t k_pairs = 0;
  uint32_t half_dim = 0;
  uint32_t seq = 0;
  uint32_t q_heads = 0;
  uint32_t kv_heads = 0;
  uint32_t pad[2] = {};
};
static_assert(sizeof(RopeParams) == 32, "must match Params in apply_rotary_emb.wgsl");

std::pair<ValueId, ValueId> outputs(const OpArgs& args) {
  const ValueList& outs = args.value_list(4);
  if (outs.items.size() != 2) args.fail(4, "expected 2 outputs, got " + std::to_string(outs.items.size()));
  return {outs.items[0], outs.items[1]};
}

void check(const OpArgs& args) {
  args.expect_count(5);
  check_rope_operands(args);
  const Dims& q = args.tensor(0).max_dims;
  const Dims& k = args.tensor(1).max_dims;
  if (q[3] % 2 != 0) args.fail(0, "head dim " + std::to_string(q[3]) + " is odd");
  if (k[0] != q[0] || k[1] != q[1] || k[3] != q[3]) {
    args.fail(1, "expected [" + std::to_string(q[0]) + ", " + std::to_string(q[1]) + ", Hkv, " + std::to_string(q[3]) +
                     "], got " + dims_string(k));
  }
  for (size_t i : {2, 3}) {
    const Dims& f = args.tensor(i).max_dims;
    if (f[1] != q[3] / 2 || f[0] < q[1]) {
      args.fail(i, "expected [>= " + std::to_string(q[1]) + ", " + std::to_string(q[3] / 2) + "], got " + dims_string(f));
    }
  }
  outputs(args);  // the ValueList's items are checked in lower (OpArgs sees only arguments)
}

template <bool kHalves>
void lower(OpContext& ctx) {
  const ValueId xq = ctx.arg(0), xk = ctx.arg(1), cos = ctx.arg(2), sin = ctx.arg(3);
  // Not a structured binding: clang 15 (the sanitizer and fuzz builds) cannot
  // capture one in the hook's lambda.
  const auto outs = outputs(ctx.args());
  const ValueId q_out = std::get<0>(outs), k_out = std::get<1>(outs);
  for (auto [id, like] : {std::pair{q_out, xq}, std::pair{k_out, xk}}) {
    if (!ctx.graph().is_tensor(id) || ctx.max_dims(id) != ctx.max_dims(like) || ctx.tensor_info(id).dtype != DType::F32) {
      ctx.args().fail(4, "output " + std::to_string(id) + " must be an f32 tensor shaped " + dims_string(ctx.max_dims(like)));
    }
  }
  const UniformId u = ctx.uniform(sizeof(RopeParams));
  const DispatchId d =
      ctx.dispatch(ctx.pipeline("rope/apply_rotary_emb.wgsl", "main", {{"WG", kWorkgroup}, {"HALVES", kHalves ? 1.0 : 0.0}}),
                   {ctx.tensor(xq), ctx.tensor(xk), ctx.tensor(cos), ctx.tensor(sin), ctx.tensor(q_out),
                    ctx.tensor(k_out), ctx.uniform_binding(u)});
  ctx.on_resize({xq, xk, cos, sin}, [=](ResizeContext& r) {
    const Dims& q = r.dims(xq);
    const Dims& k = r.dims(xk);
    if (k[0] != q[0] || k[1] != q[1] || r.dims(cos)[0] < q[1] || r.dims(sin)[0] < q[1]) {
      throw Error(ErrorCode::InvalidArgument, "apply_rotary_emb: live xq " + dims_string(q) + ", xk " + dims_string(k) +
                                                  ", freqs " + dims_string(r.dims(cos)) + " disagree on S");
    }
    r.set_dims(q_out, q);
    r.set_dims(k_out, k);
    RopeParams p;
    p.q_pairs = static_cast<uint32_t>(numel(q) / 2);
    p.k_pairs = static_cast<uint32_t>(numel(k) / 2);
    p.half_dim = static_cast<uint32_t>(q[3] / 2);
    p.seq = static_cast<uint32_t>(q[1]);
    p.q_heads = static_cast<uint32_t>(q[2]);
    p.kv_heads = static_cast<uint32_t>(k[2]);
    r.write_uniform(u, p);
    r.set_workgroups(d, r.fold(gpu::div_up(uint64_t(p.q_pairs) + p.k_pairs, kWorkgroup)));
  });
}

}  // namespace

void register_rope_variants(OpRegistry& registry);

void register_rope(OpRegistry& registry) {
  registry.add("et_vk.apply_rotary_emb.default", {check, lower<false>});
  registry.add("wgrt.apply_rotary_emb_halves", {check, lower<true>});
  register_rope_variants(registry);
}

}  // namespace wgrt::ops
