// Builds the graph of a Llama-family GGUF model for wgrt's engine: one graph
// at the maximum prefill chunk that serves prefill (S tokens) and decode
// (S = 1) through resize hooks, with the KV cache kept on the GPU as state.
//
// The KV caches hold `slots` sequences, each in its own rows (its slot).
// A pass runs either one sequence's S tokens (prefill, or a decode step of
// one) or one token of each of B <= slots sequences (a batched decode step).
// Inputs:  0 tokens [1, S <= max_chunk] i64
//          1 pos, a symbolic int: one sequence: the position of its first
//            token (how many its slot caches already); a batch: the most
//            positions any row attends (the largest position + 1)
//          2 slot, a symbolic int: the sequence's slot; -1 for a batch
//          3 token positions [S] i64: each token's position (RoPE rows)
//          4 batch rows [B, 2] i32: (position, slot) of each batch row (a
//            negative position skips the row); read only when slot is -1
//          5 logits_from, a symbolic int: the first row whose logits come
//            out (S - 1 for one sequence, 0 for a batch)
// Output:  logits [1, S - logits_from <= min(slots, max_chunk), vocab].
//
// A part of the layers (LlamaGraphOptions::layers, for a model split across
// devices) takes the hidden state [1, S, dim] f32 as input 0 unless it
// starts at layer 0, and gives the hidden state after its last layer as its
// output unless it ends with the model's last layer (the head).
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
  // Sequences whose KV caches the graph holds (1 to kMaxSlots): the caches
  // are slots x max_context rows.
  int64_t slots = 1;
  // Called once per weight tensor as it is prepared (done, total).
  std::function<void(size_t, size_t)> on_weight;
  // The layers [first, end) this graph runs (end -1: to the last): a
  // model split across devices builds one graph per part.
  struct LayerRange {
    int64_t first = 0;
    int64_t end = -1;
  } layers;
};

constexpr int64_t kMaxSlots = 32;

struct LlamaGraph {
  Graph graph;
  LlamaConfig config;
  int64_t max_context = 0;
  int64_t max_chunk = 0;
};

LlamaGraph build_llama_graph(const GgufFile& file, const LlamaGraphOptions& options);

}  // namespace wgrt::gguf
