// DecodeAttention (attention_paths.h): a decode step (S = 1) in one dispatch
// of (KV head, split of the positions) workgroups per cache part, which also
// writes the new K/V row into the caches, plus a combine dispatch once the
// context is long enough for several splits (sdpa_decode.wgsl).
#include <algorithm>

#include "gpu/workgroups.h"
#include "ops/attention/attention_paths.h"
#include "wgrt/error.h"

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
  uint32_t rows = 1;
  uint32_t slot_len = 0;
  uint32_t window = 0;
  uint32_t slots = 0;
};
static_assert(sizeof(DecodeParams) == 48, "must match Params in sdpa_decode.wgsl");

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
  // A batch of R rows shares the partials: R * splits <= the splits they hold.
  a.partial_rows_ = std::max<uint32_t>(a.max_splits_, static_cast<uint32_t>(shape.max_batch));
  const auto split_parts = ctx.scratch(uint64_t(a.partial_rows_) * shape.heads * (shape.head_dim + 4) * sizeof(float),
                                       "sdpa decode splits");
  const gpu::OverrideConstants constants = {
      {"WG", kDecodeWorkgroup}, {"GROUP", shape.group}, {"DIM4", double(shape.head_dim / 4)}};
  const gpu::ShaderSlot cache = {"cache", shape.f16_cache ? "f16" : "f32"};
  // One dispatch of `entry` per cache part; the batch entry also binds the rows.
  const auto record_parts = [&](const char* entry, const char* label, bool batch, std::vector<PartDispatch>& out) {
    const auto& pipeline = ctx.pipeline("attention/sdpa_decode.wgsl", entry, constants, {cache});
    for (const CachePart& part : parts) {
      PartDispatch d{ctx.uniform(sizeof(DecodeParams)), 0, static_cast<uint32_t>(part.first_head),
                     static_cast<uint32_t>(part.heads)};
      std::vector<gpu::BufferBinding> bindings = {ctx.uniform_binding(d.uniform), io.q, part.buffers[0],
                                                  part.buffers[1], io.k, io.v, split_parts, io.out};
      if (batch) bindings.push_back(io.batch_rows);
      d.dispatch = ctx.dispatch(pipeline, bindings, label);
      out.push_back(d);
    }
  };
  record_parts("main", "sdpa decode", false, a.parts_);
  if (shape.max_batch > 1) record_parts("batch", "sdpa batch decode", true, a.batch_parts_);
  const auto& combine = ctx.pipeline("attention/sdpa_decode.wgsl", "combine", constants, {cache});
  // The combine reads only q_heads and splits, alike in every part's uniform.
  a.combine_ =
      ctx.dispatch(combine, {ctx.uniform_binding(a.parts_.front().uniform), split_parts, io.out}, "sdpa decode combine");
  return a;
}

void DecodeAttention::run(ResizeContext& r, AttentionStep step) const {
  const uint32_t window = shape_.window;
  DecodeParams dp;
  const int64_t pos = step.start - step.base;  // the new token's position in its sequence
  dp.start = static_cast<uint32_t>(step.start);
  dp.first = static_cast<uint32_t>(step.base + (window > 0 && pos + 1 > int64_t(window) ? pos + 1 - window : 0));
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
  for (const PartDispatch& d : batch_parts_) r.set_workgroups(d.dispatch, gpu::WorkgroupCount{0, 1, 1});
  set_combine(r, 1, split.splits);
}

void DecodeAttention::set_combine(ResizeContext& r, uint32_t rows, uint32_t splits) const {
  const uint64_t groups =
      splits > 1 ? gpu::div_up(uint64_t(rows) * shape_.heads * (shape_.head_dim / 4), kDecodeWorkgroup) : 0;
  r.set_workgroups(combine_, gpu::WorkgroupCount{static_cast<uint32_t>(groups), 1, 1});
}

void DecodeAttention::run_batch(ResizeContext& r, BatchStep step) const {
  if (batch_parts_.empty() || step.rows > uint32_t(shape_.max_batch)) {
    throw Error(ErrorCode::Internal, "sdpa batch decode: " + std::to_string(step.rows) + " rows, recorded for " +
                                         std::to_string(shape_.max_batch));
  }
  const uint32_t window = shape_.window;
  const auto attended =
      static_cast<uint32_t>(window > 0 ? std::min<int64_t>(step.positions, window) : step.positions);
  // Fewer splits per row as rows grow: the partials hold partial_rows_ (row, split) pairs.
  const uint32_t most = std::max<uint32_t>(1, std::min(max_splits_, partial_rows_ / step.rows));
  const DecodeSplits split = decode_splits(std::max<uint32_t>(attended, 1), split_positions_, most);
  DecodeParams dp;
  dp.split_len = split.split_len;
  dp.splits = split.splits;
  dp.scale = shape_.scale;
  dp.q_heads = shape_.heads;
  dp.rows = step.rows;
  dp.slot_len = static_cast<uint32_t>(step.slot_len);
  dp.window = window;
  dp.slots = static_cast<uint32_t>(shape_.cache_max / step.slot_len);
  for (const PartDispatch& d : batch_parts_) {
    dp.cache_heads = d.kv_heads;
    dp.kv_head0 = d.kv_head0;
    r.write_uniform(d.uniform, dp);
    r.set_workgroups(d.dispatch, r.fold(uint64_t(d.kv_heads) * split.splits * step.rows));
  }
  for (const PartDispatch& d : parts_) r.set_workgroups(d.dispatch, gpu::WorkgroupCount{0, 1, 1});
  // The combine reads rows and splits from the first part's uniform.
  DecodeParams first = dp;
  first.cache_heads = parts_.front().kv_heads;
  first.kv_head0 = parts_.front().kv_head0;
  r.write_uniform(parts_.front().uniform, first);
  set_combine(r, step.rows, split.splits);
}

void DecodeAttention::idle(ResizeContext& r) const {
  if (!recorded()) return;
  for (const PartDispatch& d : parts_) r.set_workgroups(d.dispatch, gpu::WorkgroupCount{0, 1, 1});
  for (const PartDispatch& d : batch_parts_) r.set_workgroups(d.dispatch, gpu::WorkgroupCount{0, 1, 1});
  r.set_workgroups(combine_, gpu::WorkgroupCount{0, 1, 1});
}

}  // namespace wgrt::ops
