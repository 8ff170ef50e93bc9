// DecodeAttention (attention_paths.h): a decode step (S = 1) in one dispatch
// of (KV head, split of the positions) workgroups per cache part, which also
// writes the new K/V row into the caches, plus a combine dispatch once the
// context is long enough for several splits (sdpa_decode.wgsl).
#include <algorithm>

#include "gpu/workgroups.h"
#include "ops/attention/attention_paths.h"

namespace wgrt::ops {
namespace {

// Mirrors `Params` in sdpa_decode.wgsl.
struct DecodeParams {
  uint32_t start = 0;
  uint32_t cache_heads = 0;
  uint32_t first = 0;
  uint32_t split_len = 0;
  uint32_t splits = 0;
  float scale = 0;
  uint32_t q_heads = 0;
  uint32_t kv_head0 = 0;
};
static_assert(sizeof(DecodeParams) == 32, "must match Params in sdpa_decode.wgsl");

// How the decode kernel splits the attended positions over workgroups: about
// P positions per split (P = 128; Tuning::sdpa_split for A/B runs), at most
// kDecodeMaxSplits splits and as many as the scratch holds (longer contexts
// take longer splits). Measured on the H200 (bench/RESULTS.md, session 9),
// llama1b tg64 after 2,048 cached tokens: P = 64 872.5 tok/s, 128 917.4, 256
// 887.3, 512 783.4; at tg128 from position 0, 64 and 128 did not differ.
constexpr uint32_t kDecodeMaxSplits = 128;

// WG in sdpa_decode.wgsl, both entries (at most 256: common/reduce_*.wgsl).
constexpr uint32_t kDecodeWorkgroup = 256;

struct DecodeSplits {
  uint32_t splits, split_len;
};

DecodeSplits decode_splits(uint32_t positions, uint32_t per_split, uint32_t max_splits) {
  const uint64_t want = std::clamp<uint64_t>(gpu::div_up(positions, per_split), 1, max_splits);
  const auto split_len = static_cast<uint32_t>(gpu::div_up(positions, want));
  return {static_cast<uint32_t>(gpu::div_up(positions, split_len)), split_len};  // no empty last split
}

}  // namespace

// Up to 8 query heads per KV head, and teams of D / 4 lanes (a power of two
// up to 64) in the kernel's kDecodeWorkgroup invocations.
bool DecodeAttention::fits(uint32_t group, int64_t head_dim) {
  const int64_t dim4 = head_dim / 4;
  return group >= 1 && group <= 8 && dim4 > 0 && dim4 <= 64 && (dim4 & (dim4 - 1)) == 0;
}

DecodeAttention DecodeAttention::record(OpContext& ctx, const AttentionShape& shape, const AttentionIo& io,
                                        const std::vector<CachePart>& parts) {
  DecodeAttention a;
  a.shape_ = shape;
  if (!fits(shape.group, shape.head_dim)) return a;
  // The splits' partials (D + 4 floats per head each) take no more scratch
  // than one score per head and cached position would.
  a.max_splits_ = static_cast<uint32_t>(
      std::clamp<uint64_t>(uint64_t(shape.cache_max) / uint64_t(shape.head_dim + 4), 1, kDecodeMaxSplits));
  // P, read once at load (not per step). Caches in parts run one dispatch per
  // part, one after another (they share the partials and the output), each
  // over a part's heads: shorter splits give each as many workgroups as one
  // dispatch over every head would have had.
  a.split_positions_ = std::max<uint32_t>(16, ctx.tuning().sdpa_split / static_cast<uint32_t>(parts.size()));
  const auto split_parts = ctx.scratch(uint64_t(a.max_splits_) * shape.heads * (shape.head_dim + 4) * sizeof(float),
                                       "sdpa decode splits");
  const gpu::OverrideConstants constants = {
      {"WG", kDecodeWorkgroup}, {"GROUP", shape.group}, {"DIM4", double(shape.head_dim / 4)}};
  const gpu::ShaderSlot cache = {"cache", shape.f16_cache ? "f16" : "f32"};
  const auto& pipeline = ctx.pipeline("attention/sdpa_decode.wgsl", "main", constants, {cache});
  for (const CachePart& part : parts) {
    PartDispatch d{ctx.uniform(sizeof(DecodeParams)), 0, static_cast<uint32_t>(part.first_head),
                   static_cast<uint32_t>(part.heads)};
    d.dispatch = ctx.dispatch(pipeline,
                              {ctx.uniform_binding(d.uniform), io.q, part.buffers[0], part.buffers[1], io.k, io.v,
                               split_parts, io.out},
                              "sdpa decode");
    a.parts_.push_back(d);
  }
  const auto& combine = ctx.pipeline("attention/sdpa_decode.wgsl", "combine", constants, {cache});
  // The combine reads only q_heads and splits, alike in every part's uniform.
  a.combine_ =
      ctx.dispatch(combine, {ctx.uniform_binding(a.parts_.front().uniform), split_parts, io.out}, "sdpa decode combine");
  return a;
}

void DecodeAttention::run(ResizeContext& r, AttentionStep step) const {
  const uint32_t window = shape_.window;
  DecodeParams dp;
  dp.start = static_cast<uint32_t>(step.start);
  dp.first = window > 0 && step.start + 1 > int64_t(window) ? static_cast<uint32_t>(step.start + 1 - window) : 0;
  const DecodeSplits split = decode_splits(dp.start + 1 - dp.first, split_positions_, max_splits_);
  dp.split_len = split.split_len;
  dp.splits = split.splits;
  dp.scale = shape_.scale;
  dp.q_heads = shape_.heads;
  for (const PartDispatch& d : parts_) {
    dp.cache_heads = d.kv_heads;
    dp.kv_head0 = d.kv_head0;
    r.write_uniform(d.uniform, dp);
    r.set_workgroups(d.dispatch, r.fold(uint64_t(d.kv_heads) * split.splits));
  }
  const uint64_t combine_groups = split.splits > 1 ? gpu::div_up(uint64_t(shape_.heads) * (shape_.head_dim / 4), kDecodeWorkgroup) : 0;
  r.set_workgroups(combine_, gpu::WorkgroupCount{static_cast<uint32_t>(combine_groups), 1, 1});
}

void DecodeAttention::idle(ResizeContext& r) const {
  if (!recorded()) return;
  for (const PartDispatch& d : parts_) r.set_workgroups(d.dispatch, gpu::WorkgroupCount{0, 1, 1});
  r.set_workgroups(combine_, gpu::WorkgroupCount{0, 1, 1});
}

}  // namespace wgrt::ops
