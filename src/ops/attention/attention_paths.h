// The three ways sdpa_with_kv_cache (sdpa.cpp) computes attention, each
// recorded once at load and given workgroups or none by the op's resize hook
// for every step (one graph serves prefill and decode):
//   DecodeAttention     S = 1: sdpa_decode.wgsl (cache write included), split
//                       over the positions, plus a combine dispatch
//   FlashAttentionPath  S > 1 (or any S with an f16 cache): online softmax,
//                       flash_attention[_tiled].wgsl, no score buffer
//   ThreePassAttention  scores, softmax, weighted sum through a scratch
//                       score matrix (sdpa.wgsl), in chunks of query heads
// Each records one set of dispatches per part of the KV caches (caches above
// the binding limit are stored in parts by KV heads: kv_cache.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "graph/op_context.h"
#include "ops/attention/kv_cache.h"

namespace wgrt::ops {

// What every path needs of the op: its shapes and constant arguments.
struct AttentionShape {
  uint32_t heads = 0, kv_heads = 0, group = 0;  // group = heads / kv_heads
  int64_t head_dim = 0, max_seq = 0, cache_max = 0;
  float scale = 0;
  uint32_t window = 0;  // 0: none
  bool f16_cache = false;
  int64_t max_batch = 1;  // > 1: DecodeAttention also records its batch kernel for this many rows
};

// The op's tensors, bound whole (the caches come by parts).
struct AttentionIo {
  gpu::BufferBinding q, k, v, out;
  gpu::BufferBinding batch_rows;  // with max_batch > 1: i32 (position, slot) per row
};

// One step: S live query rows of one sequence, the first at cache row
// `start`; the sequence's rows begin at `base` (its slot, when the caches
// hold several: nothing before base is attended).
struct AttentionStep {
  int64_t start = 0, s = 0, base = 0;
};

// One batched decode step: `rows` query rows, each of its own sequence (its
// position and slot on the GPU, AttentionIo::batch_rows); no row attends
// more than `positions` rows; slots are `slot_len` rows apart.
struct BatchStep {
  uint32_t rows = 0;
  int64_t positions = 0, slot_len = 0;
};

// One dispatch over one part of the caches.
struct PartDispatch {
  UniformId uniform = 0;
  DispatchId dispatch = 0;
  uint32_t kv_head0 = 0, kv_heads = 0;
};

class DecodeAttention {
 public:
  // Whether sdpa_decode.wgsl takes this head shape.
  static bool fits(uint32_t group, int64_t head_dim);
  // Records nothing unless fits().
  static DecodeAttention record(OpContext& ctx, const AttentionShape& shape, const AttentionIo& io,
                                const std::vector<CachePart>& parts);
  bool recorded() const { return !parts_.empty(); }
  void run(ResizeContext& r, AttentionStep step) const;
  // Several sequences' new tokens (needs max_batch >= step.rows).
  void run_batch(ResizeContext& r, BatchStep step) const;
  void idle(ResizeContext& r) const;

 private:
  void set_combine(ResizeContext& r, uint32_t rows, uint32_t splits) const;

  AttentionShape shape_;
  std::vector<PartDispatch> parts_, batch_parts_;
  DispatchId combine_ = 0;
  uint32_t max_splits_ = 0, split_positions_ = 0, partial_rows_ = 0;
};

class FlashAttentionPath {
 public:
  static constexpr int64_t kMaxHeadDim = 128;  // flash_attention.wgsl: MAX_SLICE * 4 lanes * 4
  // Whether the device has the workgroup memory (and the head dim is one it takes).
  static bool fits(const gpu::Device& device, int64_t head_dim);
  static uint64_t workgroup_bytes(int64_t head_dim);
  static FlashAttentionPath record(OpContext& ctx, const AttentionShape& shape, const AttentionIo& io,
                               const std::vector<CachePart>& parts);
  void run(ResizeContext& r, AttentionStep step) const;
  void idle(ResizeContext& r) const;

 private:
  AttentionShape shape_;
  std::vector<PartDispatch> parts_;
  uint32_t rows_ = 0;  // query rows per workgroup
};

class ThreePassAttention {
 public:
  // `pass_seq`: the largest S the passes will see (their score scratch).
  static ThreePassAttention record(OpContext& ctx, const AttentionShape& shape, const AttentionIo& io,
                                   const std::vector<CachePart>& parts, int64_t pass_seq);
  void run(ResizeContext& r, AttentionStep step) const;
  void idle(ResizeContext& r) const;

 private:
  struct Chunk {
    UniformId uniform;
    DispatchId qk, softmax, av;
    uint32_t head_begin, heads;
    uint32_t kv_head0, kv_heads;  // the cache part read
  };
  AttentionShape shape_;
  std::vector<Chunk> chunks_;
};

}  // namespace wgrt::ops
