// ThreePassAttention (attention_paths.h): scores, softmax and weighted sum
// through a scratch score matrix (sdpa.wgsl), in chunks of query heads small
// enough that a chunk's scores fit one storage binding, and no chunk reading
// two parts of the caches.
#include <algorithm>

#include "gpu/device.h"
#include "gpu/workgroups.h"
#include "ops/attention/attention_paths.h"
#include "ops/attention/sdpa.h"
#include "wgrt/error.h"

namespace wgrt::ops {
namespace {

// Mirrors `Params` in sdpa.wgsl.
struct SdpaParams {
  uint32_t seq = 0;
  uint32_t start = 0;
  uint32_t heads = 0;
  uint32_t head_begin = 0;
  uint32_t q_heads = 0;
  uint32_t group = 0;
  uint32_t cache_heads = 0;
  uint32_t dim4 = 0;
  uint32_t row_stride = 0;
  float scale = 0;
  uint32_t window = 0;  // 0: no sliding window
  uint32_t kv_head0 = 0;
};
static_assert(sizeof(SdpaParams) == 48, "must match Params in sdpa.wgsl");

}  // namespace

uint32_t sdpa_heads_per_chunk(uint32_t heads, int64_t max_seq, int64_t max_context, uint64_t max_binding_bytes) {
  const uint64_t per_head = uint64_t(max_seq) * max_context * sizeof(float);
  const uint64_t fit = per_head == 0 ? heads : max_binding_bytes / per_head;
  if (fit == 0) {
    throw Error(ErrorCode::NotSupported, "sdpa_with_kv_cache: one head's scores (" + std::to_string(per_head) +
                                             " bytes) exceed the largest storage binding (" +
                                             std::to_string(max_binding_bytes) + ")");
  }
  // Even chunks: as few as fit, then spread the heads evenly over them.
  const uint64_t n = gpu::div_up(heads, std::min<uint64_t>(fit, heads));
  return static_cast<uint32_t>(gpu::div_up(heads, n));
}

ThreePassAttention ThreePassAttention::record(OpContext& ctx, const AttentionShape& shape, const AttentionIo& io,
                                              const std::vector<CachePart>& parts, int64_t pass_seq) {
  ThreePassAttention a;
  a.shape_ = shape;
  const uint32_t chunk = sdpa_heads_per_chunk(shape.heads, pass_seq, shape.cache_max,
                                              ctx.device().limits().max_storage_buffer_binding_size);
  const auto scores = ctx.scratch(uint64_t(chunk) * pass_seq * shape.cache_max * sizeof(float), "sdpa scores");
  const gpu::OverrideConstants wg = {{"WG", kSdpaWorkgroup}};
  const auto& qk = ctx.pipeline("attention/sdpa.wgsl", "scores", wg);
  const auto& softmax = ctx.pipeline("attention/sdpa.wgsl", "softmax", {{"WG", kSdpaSoftmaxWorkgroup}});
  const auto& av = ctx.pipeline("attention/sdpa.wgsl", "weighted_sum", wg);
  for (const CachePart& part : parts) {
    const auto part_begin = static_cast<uint32_t>(part.first_head) * shape.group;
    const auto part_end = part_begin + static_cast<uint32_t>(part.heads) * shape.group;
    for (uint32_t begin = part_begin; begin < part_end; begin += chunk) {
      Chunk c;
      c.head_begin = begin;
      c.heads = std::min(chunk, part_end - begin);
      c.kv_head0 = static_cast<uint32_t>(part.first_head);
      c.kv_heads = static_cast<uint32_t>(part.heads);
      c.uniform = ctx.uniform(sizeof(SdpaParams));
      const auto params = ctx.uniform_binding(c.uniform);
      c.qk = ctx.dispatch(qk, {params, io.q, part.buffers[0], scores}, "sdpa scores");
      c.softmax = ctx.dispatch(softmax, {params, scores}, "sdpa softmax");
      c.av = ctx.dispatch(av, {params, scores, part.buffers[1], io.out}, "sdpa weighted sum");
      a.chunks_.push_back(c);
    }
  }
  return a;
}

void ThreePassAttention::run(ResizeContext& r, AttentionStep step) const {
  // Caches holding several sequences need flash attention and the decode
  // kernel (sdpa.cpp refuses the rest when checking).
  if (step.base != 0) throw Error(ErrorCode::Internal, "sdpa: the three-pass path attends only slot 0");
  const uint64_t context = uint64_t(step.start + step.s);
  for (const Chunk& c : chunks_) {
    SdpaParams p;
    p.seq = static_cast<uint32_t>(step.s);
    p.start = static_cast<uint32_t>(step.start);
    p.heads = c.heads;
    p.head_begin = c.head_begin;
    p.q_heads = shape_.heads;
    p.group = shape_.group;
    p.cache_heads = c.kv_heads;
    p.kv_head0 = c.kv_head0;
    p.dim4 = static_cast<uint32_t>(shape_.head_dim / 4);
    p.row_stride = static_cast<uint32_t>(shape_.cache_max);
    p.scale = shape_.scale;
    p.window = shape_.window;
    r.write_uniform(c.uniform, p);
    const uint64_t rows = uint64_t(c.heads) * uint64_t(step.s);
    r.set_workgroups(c.qk, r.fold(gpu::div_up(rows * context, kSdpaWorkgroup)));
    r.set_workgroups(c.softmax, r.fold(rows));
    r.set_workgroups(c.av, r.fold(gpu::div_up(rows * p.dim4, kSdpaWorkgroup)));
  }
}

void ThreePassAttention::idle(ResizeContext& r) const {
  for (const Chunk& c : chunks_) {
    for (DispatchId d : {c.qk, c.softmax, c.av}) r.set_workgroups(d, gpu::WorkgroupCount{0, 1, 1});
  }
}

}  // namespace wgrt::ops
