// wgrt.sample_tokens (logits, vocab, rows, tokens): an LLM graph's tail
// (llm/llm_model.cpp adds it). It draws the next token of each sampler row
// from its row of `logits` (f32, [..., vocab or more]) into `tokens` (an i32
// state tensor, so the token stays on the GPU for the next pass to read):
// GpuSampler's step, recorded once as four dispatches of the graph. The
// sampler, its `rows` rows of parameters, windows and masks, is the op's
// state: callers reach it by ExecutableGraph::op_state<GpuSampler>(kSampleTokensOp)
// and, before a run, name the rows it draws (GpuSampler::draw_next); a run
// that names none dispatches nothing here.
#include <array>
#include <memory>
#include <string>

#include "graph/op_context.h"
#include "ops/register_ops.h"
#include "ops/sampling/gpu_sampler.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

void check(const OpArgs& args) {
  args.expect_count(4);
  const Tensor& logits = args.tensor(0, {DType::F32});
  args.expect_rank_at_least(0, 2);
  const Tensor& tokens = args.tensor(3, {DType::I32});
  args.expect_rank(3, 1);
  if (tokens.storage != StorageKind::State) {
    args.fail(3, "expected a state tensor (the tokens stay between runs), got " +
                     std::string(storage_name(tokens.storage)));
  }
  const int64_t vocab = args.integer(1), rows = args.integer(2);
  if (vocab < 1 || vocab > logits.max_dims.back()) {
    args.fail(1, "vocab " + std::to_string(vocab) + " outside [1, " + std::to_string(logits.max_dims.back()) +
                     "] (the logits' last dim)");
  }
  if (rows < 1 || rows > tokens.max_dims[0]) {
    args.fail(2, "rows " + std::to_string(rows) + " outside [1, " + std::to_string(tokens.max_dims[0]) +
                     "] (the tokens' size)");
  }
}

void lower(OpContext& ctx) {  // (check ran when the graph was loaded)
  const gpu::BufferBinding logits = ctx.tensor(ctx.arg(0)), tokens = ctx.tensor(ctx.arg(3));
  if (logits.offset != 0 || tokens.offset != 0) {
    throw Error(ErrorCode::NotSupported, "wgrt.sample_tokens: the logits and tokens need buffers of their own");
  }
  auto sampler = std::make_shared<GpuSampler>(ctx.device(), *logits.buffer, *tokens.buffer,
                                              uint32_t(ctx.args().integer(1)), uint32_t(ctx.args().integer(2)),
                                              ctx.tuning().shader_checks);
  const std::vector<gpu::BufferBinding> bindings = sampler->bindings();
  const auto pipelines = sampler->step_pipelines();
  const auto labels = sampler->step_labels();
  std::array<DispatchId, GpuSampler::kStepDispatches> ids{};
  for (size_t k = 0; k < ids.size(); ++k) ids[k] = ctx.dispatch(*pipelines[k], bindings, labels[k]);
  ctx.on_every_run([s = sampler.get(), ids](ResizeContext& r) {
    const auto groups = s->take_step();
    for (size_t k = 0; k < ids.size(); ++k) r.set_workgroups(ids[k], groups[k]);
  });
  ctx.keep_state(std::move(sampler));
}

}  // namespace

void register_sampling(OpRegistry& registry) {
  registry.add(kSampleTokensOp, OpDef{.check = check, .lower = lower, .dtypes = "f32 logits, i32 tokens"});
}

}  // namespace wgrt::ops
