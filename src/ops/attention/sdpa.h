// sdpa_with_kv_cache.default: what tests need to reason about its dispatches.
#pragma once

#include <cstdint>

namespace wgrt::ops {

// Invocations per workgroup of the scores and weighted_sum passes (sdpa.wgsl).
constexpr uint32_t kSdpaWorkgroup = 64;
// Invocations per workgroup of the softmax pass: a power of two (its tree
// reductions halve it), one workgroup per score row.
constexpr uint32_t kSdpaSoftmaxWorkgroup = 128;

// Query heads per pass chunk, so that one chunk's score matrix
// (heads x max_seq x max_context f32) fits one storage binding.
uint32_t sdpa_heads_per_chunk(uint32_t heads, int64_t max_seq, int64_t max_context, uint64_t max_binding_bytes);

}  // namespace wgrt::ops
