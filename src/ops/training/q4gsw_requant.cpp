// et_vk.q4gsw_requant.default (latent f32 [N, K], scales f32 [K / group_size, >= N],
// group_size, out u8 [N, ceil(K / 2)]): new 4-bit codes for trained latent
// weights under frozen scales (q4gsw_requant.wgsl has the math). A zero scale
// is defined by the reference (code 8, i.e. zero); non-finite ones are refused.
#include "gpu/workgroups.h"
#include "graph/op_context.h"
#include "ops/common/qparams.h"
#include "ops/register_ops.h"

namespace wgrt::ops {
namespace {

constexpr uint32_t kWorkgroup = 64;

struct RequantParams {
  uint32_t bytes = 0, k = 0, row_bytes = 0, group_size = 0, scales_stride = 0;
  uint32_t pad[3] = {};
};
static_assert(sizeof(RequantParams) == 32, "must match Params in q4gsw_requant.wgsl");

void check(const OpArgs& args) {
  args.expect_count(4);
  const Tensor& latent = args.tensor(0, {DType::F32});
  args.expect_rank(0, 2);
  const int64_t n = latent.max_dims[0], k = latent.max_dims[1];
  const int64_t gs = args.integer(2);
  if (gs <= 0 || k % gs != 0) {
    args.fail(2, "group size " + std::to_string(gs) + " must be positive and divide K = " + std::to_string(k));
  }
  const Tensor& s = args.tensor(1, {DType::F32});
  args.expect_rank(1, 2);
  if (s.max_dims[0] != k / gs || s.max_dims[1] < n) {
    args.fail(1, "expected scales [" + std::to_string(k / gs) + ", >= " + std::to_string(n) + "], got " +
                     dims_string(s.max_dims));
  }
  check_scale_matrix(args, 1, n, /*zero_allowed=*/true);
  const Dims want = {n, (k + 1) / 2};
  const Tensor& out = args.tensor(3, {DType::U8});
  if (out.max_dims != want) args.fail(3, "expected shape " + dims_string(want) + ", got " + dims_string(out.max_dims));
}

void lower(OpContext& ctx) {
  const ValueId latent = ctx.arg(0), scales = ctx.arg(1), out = ctx.arg(3);
  const auto& pipeline = ctx.pipeline("training/q4gsw_requant.wgsl", "main", {{"WG", kWorkgroup}});
  const UniformId u = ctx.uniform(sizeof(RequantParams));
  const DispatchId dispatch = ctx.dispatch(
      pipeline, {ctx.tensor(latent), ctx.tensor(scales), ctx.tensor(out), ctx.uniform_binding(u)});
  RequantParams p;
  const Dims dims = ctx.max_dims(latent);
  p.k = static_cast<uint32_t>(dims[1]);
  p.row_bytes = (p.k + 1) / 2;
  p.bytes = static_cast<uint32_t>(dims[0]) * p.row_bytes;
  p.group_size = static_cast<uint32_t>(ctx.args().integer(2));
  p.scales_stride = static_cast<uint32_t>(ctx.max_dims(scales)[1]);
  ctx.on_resize({latent}, [=](ResizeContext& r) {
    r.write_uniform(u, p);
    r.set_workgroups(dispatch, r.fold(gpu::div_up(gpu::div_up(p.bytes, 4), kWorkgroup)));
  });
}

}  // namespace

void register_q4gsw_requant(OpRegistry& registry) {
  registry.add("et_vk.q4gsw_requant.default", {check, lower, false, nullptr, "f32 -> u8 4-bit codes"});
}

}  // namespace wgrt::ops
