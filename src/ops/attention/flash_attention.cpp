// FlashAttentionPath (attention_paths.h): prefill attention with an online
// softmax and no score buffer, one dispatch per cache part over its query
// heads: flash_attention_tiled.wgsl for head dims up to 64 (both products
// register-tiled), flash_attention.wgsl up to 128.
#include "gpu/device.h"
#include "gpu/workgroups.h"
#include "ops/attention/attention_paths.h"

namespace wgrt::ops {
namespace {

// Mirrors `Params` in flash_io.wgsl.
struct FlashParams {
  uint32_t seq = 0, start = 0, q_heads = 0, group = 0, cache_heads = 0;
  float scale = 0;
  uint32_t window = 0, head0 = 0, heads = 0, base = 0, pad[2] = {};
};
static_assert(sizeof(FlashParams) == 48, "must match Params in flash_io.wgsl");
constexpr uint32_t kFlashRows = 16, kFlashKeys = 32;  // BQ, BKV in flash_attention.wgsl

// flash_attention_tiled.wgsl (128 threads per 32 query rows): head dims up
// to 64, and its workgroup memory (Q^T, K^T and V tiles, 32 x 32
// probabilities, row state).
constexpr uint32_t kTiledRows = 32, kTiledKeys = 32, kTiledThreads = 128;  // BQ, BKV, THREADS there
constexpr int64_t kTiledMaxHeadDim = 64;
uint64_t tiled_workgroup_bytes(int64_t head_dim) {
  // f32 words: Q^T, K^T and V, the probabilities, the score threads' maxima
  // (one per 4 keys and row), the sums' parts, the rows' corrections.
  return (3 * kTiledRows * head_dim + kTiledKeys * kTiledRows + kTiledKeys / 4 * kTiledRows + kTiledThreads +
          kTiledRows) *
         4;
}

// Whether prefill attention runs the tiled kernel: where it fits, unless
// Tuning::flash_kernel Rows asks for flash_attention.wgsl (A/B; Tiled is
// the default). Measured on the H200: bench/RESULTS.md, 2026-12-02 seventh run.
bool use_tiled(const gpu::Device& device, const Tuning& tuning, int64_t head_dim) {
  if (tuning.flash_kernel == FlashKernel::Rows) return false;
  return head_dim <= kTiledMaxHeadDim &&
         tiled_workgroup_bytes(head_dim) <= device.limits().max_compute_workgroup_storage_size;
}

}  // namespace

// Workgroup memory of flash_attention.wgsl: q rows, one K/V tile, scores.
uint64_t FlashAttentionPath::workgroup_bytes(int64_t head_dim) {
  return (kFlashRows * head_dim + kFlashKeys * (head_dim + 4)) * 4 + kFlashRows * kFlashKeys * 4;
}

bool FlashAttentionPath::fits(const gpu::Device& device, int64_t head_dim) {
  return head_dim <= kMaxHeadDim && workgroup_bytes(head_dim) <= device.limits().max_compute_workgroup_storage_size;
}

FlashAttentionPath FlashAttentionPath::record(OpContext& ctx, const AttentionShape& shape, const AttentionIo& io,
                                      const std::vector<CachePart>& parts) {
  FlashAttentionPath a;
  a.shape_ = shape;
  const int64_t d = shape.head_dim;
  const bool tiled = use_tiled(ctx.device(), ctx.tuning(), d);
  a.rows_ = tiled ? kTiledRows : kFlashRows;
  const gpu::ShaderSlot cache = {"cache", shape.f16_cache ? "f16" : "f32"};
  const auto& pipeline =
      tiled ? ctx.pipeline("attention/flash_attention_tiled.wgsl", "flash_tiled",
                           {{"D4", double(d / 4)}, {"TILE_LEN", double(d * 8)}}, {cache})
            : ctx.pipeline("attention/flash_attention.wgsl", "flash",
                           {{"D4", double(d / 4)},
                            {"KS", double(d / 4 + 1)},
                            {"Q_LEN", double(kFlashRows * d / 4)},
                            {"KV_LEN", double(kFlashKeys * (d / 4 + 1))}},
                           {cache});
  for (const CachePart& part : parts) {
    PartDispatch p{ctx.uniform(sizeof(FlashParams)), 0, static_cast<uint32_t>(part.first_head),
                   static_cast<uint32_t>(part.heads)};
    p.dispatch = ctx.dispatch(pipeline, {ctx.uniform_binding(p.uniform), io.q, part.buffers[0], part.buffers[1], io.out},
                              tiled ? "flash attention tiled" : "flash attention");
    a.parts_.push_back(p);
  }
  return a;
}

void FlashAttentionPath::run(ResizeContext& r, AttentionStep step) const {
  for (const PartDispatch& d : parts_) {
    FlashParams p;
    p.seq = static_cast<uint32_t>(step.s);
    p.start = static_cast<uint32_t>(step.start);
    p.q_heads = shape_.heads;
    p.group = shape_.group;
    p.cache_heads = d.kv_heads;
    p.scale = shape_.scale;
    p.window = shape_.window;
    p.base = static_cast<uint32_t>(step.base);
    p.head0 = d.kv_head0 * shape_.group;
    p.heads = d.kv_heads * shape_.group;
    r.write_uniform(d.uniform, p);
    r.set_workgroups(d.dispatch, r.fold(uint64_t(p.heads) * gpu::div_up(step.s, rows_)));
  }
}

void FlashAttentionPath::idle(ResizeContext& r) const {
  for (const PartDispatch& d : parts_) r.set_workgroups(d.dispatch, gpu::WorkgroupCount{0, 1, 1});
}

}  // namespace wgrt::ops
