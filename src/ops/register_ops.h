// The explicit list of op families; OpRegistry::builtin() calls each.
#pragma once

#include "graph/op_registry.h"

namespace wgrt::ops {

void register_elementwise(OpRegistry& registry);
void register_norm(OpRegistry& registry);        // rms_norm, native_layer_norm, _softmax, _log_softmax
void register_qdq(OpRegistry& registry);         // ExecuTorch quantize/dequantize and fused int8 kernels
void register_attention(OpRegistry& registry);  // sdpa_with_kv_cache, update_cache
void register_rope(OpRegistry& registry);
void register_linear(OpRegistry& registry);      // every linear: GGUF (wgrt.linear_ggml*), ExecuTorch quantized, aten.linear/mm/bmm
void register_embedding(OpRegistry& registry);   // et_vk.embedding_q4gsw, aten.embedding
void register_shape(OpRegistry& registry);       // view/slice/select/permute/cat/split/prepack/...
void register_symint(OpRegistry& registry);      // sym_size, SymInt arithmetic, select_as_symint
void register_conv(OpRegistry& registry);        // convolution, conv_with_clamp
void register_pool(OpRegistry& registry);        // avg_pool2d, max_pool2d(_with_indices)
void register_reduce(OpRegistry& registry);      // sum, mean, amax, amin, argmax, argmin
void register_creation(OpRegistry& registry);    // full, zeros, ones (and _like), scalar_tensor, arange
void register_indexing(OpRegistry& registry);    // index_select, gather
void register_sample(OpRegistry& registry);      // upsample_nearest2d, upsample_bilinear2d
void register_grid_sampler(OpRegistry& registry);  // grid_sampler_2d
void register_sampling(OpRegistry& registry);    // wgrt.sample_tokens (an LLM graph's tail)
void register_training(OpRegistry& registry);    // et_vk.linear_dW, linear_q4gsw_backward, q4gsw_requant, fused_ce

}  // namespace wgrt::ops
