// Writing new K/V rows into a cache ([1, MAX, H, D], f32, or f16 for the
// opt-in f16 KV cache) at start_pos:
// shared by update_cache.default and sdpa_with_kv_cache.default.
#pragma once

#include "graph/op_context.h"

namespace wgrt::ops {

struct CacheWrite {
  UniformId uniform = 0;
  std::vector<DispatchId> dispatches;  // one per (value, cache) pair
  bool f16 = false;                    // the caches are f16 (all pairs alike)
};

// Records one dispatch per pair; all pairs share one shape.
CacheWrite record_cache_write(OpContext& ctx, std::initializer_list<std::pair<ValueId, ValueId>> pairs);

// Sets the write of `value_dims` ([1, S, H, D]) at start_pos, after checking
// that it fits a cache of `cache_max` positions.
void plan_cache_write(ResizeContext& r, const CacheWrite& w, const Dims& value_dims, int64_t start_pos,
                      int64_t cache_max, const char* op);

}  // namespace wgrt::ops
