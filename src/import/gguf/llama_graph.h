// Builds the graph of a Llama-family GGUF model for wgrt's engine: one graph
// at the maximum prefill chunk that serves prefill (S tokens) and decode
// (S = 1) through resize hooks, with the KV cache kept on the GPU as state.
//
// Inputs:  tokens [1, S <= max_chunk] i64, input_pos (a symbolic int: the
//          position of the first token, i.e. how many are cached already).
// Output:  logits [1, vocab] of the last token.
// Weights are added as stored (ggml block formats) pointing into the mapped
// file, so the GgufFile must outlive the graph; the ops re-lay out at load
// the blocks whose words need padding.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "graph/graph.h"
#include "import/gguf/llama_config.h"

namespace wgrt::gguf {

class GgufFile;

struct LlamaGraphOptions {
  // Both are capped at the model's trained context (LlamaGraph says what was used).
  int64_t max_context = 2048;  // KV cache length: prompt + generated tokens
  int64_t max_chunk = 256;     // most tokens per forward pass (prefill chunks)
  // The opt-in f16 KV cache: half the cache bytes, rows rounded to f16
  // (attention reads them through flash attention; head dim <= 128).
  bool kv_f16 = false;
  // Called once per weight tensor as it is prepared (done, total).
  std::function<void(size_t, size_t)> on_weight;
};

struct LlamaGraph {
  Graph graph;
  LlamaConfig config;
  int64_t max_context = 0;
  int64_t max_chunk = 0;
  // The weights' constants; their GPU bytes are known once the graph is
  // loaded (ops re-lay out some of them).
  std::vector<ValueId> weights;
};

LlamaGraph build_llama_graph(const GgufFile& file, const LlamaGraphOptions& options);

}  // namespace wgrt::gguf
