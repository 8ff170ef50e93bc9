// Writing new K/V rows into a cache ([1, MAX, H, D], f32, or f16 for the
// opt-in f16 KV cache) at start_pos:
// shared by update_cache.default and sdpa_with_kv_cache.default. A cache
// above the binding limit is stored in parts by heads (dim 2, memory_plan.h):
// one write per part, each taking its heads' columns of the new rows.
#pragma once

#include "graph/op_context.h"

namespace wgrt::ops {

// The dim along which KV caches may be stored in parts (their heads).
constexpr size_t kCacheHeadsDim = 2;

struct CacheWrite {
  struct Part {
    UniformId uniform = 0;
    std::vector<DispatchId> dispatches;  // one per (value, cache) pair
    int64_t first_head = 0, heads = 0;
  };
  std::vector<Part> parts;  // the caches' parts by heads (one when a cache is one buffer)
  bool f16 = false;         // the caches are f16 (all pairs alike)
};

// Heads [first_head, first_head + heads) of some caches of one shape, one
// binding per cache (in the order asked for).
struct CachePart {
  int64_t first_head = 0, heads = 0;
  std::vector<gpu::BufferBinding> buffers;
};
// The parts of caches of one shape (a layer's K and V: MemoryPlan splits by
// size alone, so they split alike; anything else is an internal error).
std::vector<CachePart> cache_parts(OpContext& ctx, const std::vector<ValueId>& caches);

// Records one dispatch per pair and part; all pairs share one shape.
CacheWrite record_cache_write(OpContext& ctx, std::initializer_list<std::pair<ValueId, ValueId>> pairs);

// Sets the write of `value_dims` ([1, S, H, D]) at start_pos, after checking
// that it fits a cache of `cache_max` positions.
// Gives the write no workgroups (a step whose attention writes the cache itself).
void idle_cache_write(ResizeContext& r, const CacheWrite& w);

void plan_cache_write(ResizeContext& r, const CacheWrite& w, const Dims& value_dims, int64_t start_pos,
                      int64_t cache_max, const char* op);

}  // namespace wgrt::ops
