// The hyperparameters of a Llama-family model, read from GGUF metadata
// ({arch}.block_count, .embedding_length, ...). Covers llama (SmolLM2,
// Llama 2/3.x, TinyLlama, Mistral-style), qwen2 (attention biases), qwen3
// (per-head Q/K RMSNorm), phi3 (fused QKV and gate|up matrices) and gemma3
// (the text model: sandwich norms, GELU, sliding-window layers).
#pragma once

#include <cstdint>
#include <string>

namespace wgrt::gguf {

class GgufFile;

struct LlamaConfig {
  std::string arch;          // "llama", "mistral", "qwen2", "qwen3", "phi3", "gemma3"
  std::string name;          // general.name, if present
  int64_t n_layers = 0;
  int64_t dim = 0;           // embedding_length
  int64_t ffn_dim = 0;       // feed_forward_length
  int64_t n_heads = 0;
  int64_t n_kv_heads = 0;
  int64_t head_dim = 0;      // dim / n_heads unless key_length says otherwise (qwen3)
  int64_t rope_dims = 0;     // rotated dims per head (rope.dimension_count)
  int64_t vocab = 0;
  int64_t context_length = 0;
  double rms_eps = 1e-5;
  double rope_theta = 10000.0;
  double rope_linear_scale = 1.0;  // rope.scaling.factor with type "linear"
  bool tied_output = false;        // no output.weight: lm_head is token_embd
  bool attention_bias = false;     // qwen2
  // RoPE rotates pairs (i, i + rope_dims/2) (ggml's NEOX type: qwen2) rather
  // than adjacent pairs (llama, mistral), decided by the architecture as
  // llama.cpp does: its converter permutes llama's Q/K rows, not qwen2's.
  bool rope_halves = false;
  // gemma3 (its graph: arch/gemma3.cpp): sliding-window layers (all but
  // every swa_pattern-th) with their own RoPE base, read below.
  bool gemma = false;
  int64_t sliding_window = 0;  // 0: every layer attends to the whole context
  int64_t swa_pattern = 0;
  double rope_theta_swa = 10000.0;
  bool is_swa_layer(int64_t layer) const {
    return sliding_window > 0 && swa_pattern > 0 && (layer + 1) % swa_pattern != 0;
  }
  // Llama 3's long-context frequency factors (rope_freqs.weight) are used
  // when the file has them.
  bool has_rope_freqs = false;

  // Reads and validates; throws Error(NotSupported) for other architectures
  // and Error(InvalidProgram) naming the key for missing or bad values.
  static LlamaConfig from_gguf(const GgufFile& file);
  std::string summary() const;
};

}  // namespace wgrt::gguf
