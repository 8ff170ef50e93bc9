#include "import/gguf/llama_config.h"

#include <cmath>

#include "import/gguf/gguf_file.h"
#include "wgrt/error.h"

namespace wgrt::gguf {
namespace {

// A tensor's shape as [rows, columns] (ggml stores dims innermost first).
std::string dims_string(const TensorInfo& t) {
  std::string s;
  for (size_t i = t.dims.size(); i-- > 0;) s += (s.empty() ? "" : ", ") + std::to_string(t.dims[i]);
  return "[" + s + "]";
}

void check_config(const LlamaConfig& c, const GgufFile& f);

}  // namespace

LlamaConfig LlamaConfig::from_gguf(const GgufFile& f) {
  LlamaConfig c;
  c.arch = f.get_string("general.architecture");
  if (c.arch != "llama" && c.arch != "mistral" && c.arch != "qwen2" && c.arch != "qwen3" && c.arch != "phi3" &&
      c.arch != "gemma3") {
    throw Error(ErrorCode::NotSupported, f.name() + ": architecture '" + c.arch +
                                             "' is not supported (llama, mistral, qwen2, qwen3, phi3 and gemma3 are)");
  }
  c.rope_halves = c.arch != "llama" && c.arch != "mistral";
  c.gemma = c.arch == "gemma3";
  const std::string a = c.arch + ".";
  if (const auto* v = f.find("general.name"); v && v->get_if<std::string>()) c.name = *v->get_if<std::string>();
  c.n_layers = f.get_int(a + "block_count");
  c.dim = f.get_int(a + "embedding_length");
  c.ffn_dim = f.get_int(a + "feed_forward_length");
  c.n_heads = f.get_int(a + "attention.head_count");
  c.n_kv_heads = f.get_int_optional(a + "attention.head_count_kv").value_or(c.n_heads);
  c.context_length = f.get_int_optional(a + "context_length").value_or(2048);
  c.head_dim = f.get_int_optional(a + "attention.key_length").value_or(c.n_heads ? c.dim / c.n_heads : 0);
  c.rope_dims = f.get_int_optional(a + "rope.dimension_count").value_or(c.head_dim);
  if (f.has(a + "attention.layer_norm_rms_epsilon")) c.rms_eps = f.get_f32(a + "attention.layer_norm_rms_epsilon");
  if (f.has(a + "rope.freq_base")) c.rope_theta = f.get_f32(a + "rope.freq_base");
  if (f.has(a + "rope.scaling.type") && f.get_string(a + "rope.scaling.type") == "linear" &&
      f.has(a + "rope.scaling.factor")) {
    c.rope_linear_scale = f.get_f32(a + "rope.scaling.factor");
  }
  const TensorInfo& embd = f.tensor("token_embd.weight");
  c.vocab = f.get_int_optional(a + "vocab_size").value_or(int64_t(embd.dims.size() == 2 ? embd.dims[1] : 0));
  c.tied_output = f.find_tensor("output.weight") == nullptr;
  c.attention_bias = f.find_tensor("blk.0.attn_q.bias") != nullptr;
  c.has_rope_freqs = f.find_tensor("rope_freqs.weight") != nullptr;
  if (c.gemma) {
    // As llama.cpp reads Gemma 3: every 6th layer global, the others local
    // with RoPE base 10000 and no scaling.
    c.sliding_window = f.get_int_optional(a + "attention.sliding_window").value_or(0);
    c.swa_pattern = 6;
  }
  check_config(c, f);
  return c;
}

namespace {

// Refuses what the kernels cannot run or would run into NaN, naming the key.
void check_config(const LlamaConfig& c, const GgufFile& f) {
  const std::string a = c.arch + ".";
  const TensorInfo& embd = f.tensor("token_embd.weight");
  auto bad = [&](const std::string& what) { return Error(ErrorCode::InvalidProgram, f.name() + ": " + what); };
  if (c.n_layers <= 0 || c.dim <= 0 || c.ffn_dim <= 0 || c.n_heads <= 0 || c.n_kv_heads <= 0) {
    throw bad("block_count, embedding_length, feed_forward_length and head counts must be positive");
  }
  if (c.context_length <= 0) {
    throw bad(a + "context_length is " + std::to_string(c.context_length) + ", expected a positive length");
  }
  // The tensors' shapes first: a wrong embedding_length would otherwise
  // surface as a head-size mismatch.
  if (embd.dims.size() != 2 || int64_t(embd.dims[0]) != c.dim) {
    throw bad(a + "embedding_length is " + std::to_string(c.dim) + " but token_embd.weight has " +
              (embd.dims.size() == 2 ? std::to_string(embd.dims[0]) + " columns" : "not 2 dimensions"));
  }
  if (int64_t(embd.dims[1]) != c.vocab) {
    throw bad("token_embd.weight has " + std::to_string(embd.dims[1]) + " rows, expected the vocabulary size " +
              std::to_string(c.vocab));
  }
  if (const TensorInfo* out = f.find_tensor("output.weight")) {
    if (out->dims.size() != 2 || int64_t(out->dims[0]) != c.dim || int64_t(out->dims[1]) != c.vocab) {
      throw bad("output.weight is " + dims_string(*out) + ", expected [" + std::to_string(c.vocab) + ", " +
                std::to_string(c.dim) + "] (vocabulary x embedding_length)");
    }
  }
  if (c.n_heads % c.n_kv_heads != 0) {
    throw bad(std::to_string(c.n_heads) + " attention heads are not a multiple of " + std::to_string(c.n_kv_heads) +
              " KV heads");
  }
  if (c.head_dim <= 0 || c.head_dim % 2 != 0) {
    const bool derived = !f.has(a + "attention.key_length");
    throw bad(a + "attention.key_length (head size) is " + std::to_string(c.head_dim) +
              (derived ? " (embedding_length / head_count = " + std::to_string(c.dim) + " / " +
                             std::to_string(c.n_heads) + ")"
                       : "") +
              ", expected a positive even number");
  }
  // NaN or out-of-range hyperparameters would reach every kernel as NaN
  // logits; refused here, by name.
  const auto check_real = [&](const std::string& key, double v, double lo, bool lo_open) {
    if (!std::isfinite(v) || v < lo || (lo_open && v == lo)) {
      throw bad(a + key + " is " + std::to_string(v) + ", expected a finite number " + (lo_open ? "> " : ">= ") +
                std::to_string(lo));
    }
  };
  check_real("attention.layer_norm_rms_epsilon", c.rms_eps, 0.0, false);
  check_real("rope.freq_base", c.rope_theta, 0.0, true);
  check_real("rope.scaling.factor", c.rope_linear_scale, 0.0, true);
  if (f.find_tensor("rope_factors_long.weight") || f.find_tensor("rope_factors_short.weight")) {
    throw Error(ErrorCode::NotSupported, f.name() + ": LongRoPE scaling (rope_factors_long/short) is not supported");
  }
  if (c.rope_dims != c.head_dim) {
    throw Error(ErrorCode::NotSupported, f.name() + ": partial rotary embeddings (" + std::to_string(c.rope_dims) +
                                             " of " + std::to_string(c.head_dim) + " dims) are not supported");
  }
}

}  // namespace

std::string LlamaConfig::summary() const {
  if (dim == 0) {  // known only through a .pte's metadata methods
    return arch + (name.empty() ? "" : " (" + name + ")") + ": " + std::to_string(n_layers) + " layers, vocab " +
           std::to_string(vocab) + ", context " + std::to_string(context_length);
  }
  return arch + (name.empty() ? "" : " (" + name + ")") + ": " + std::to_string(n_layers) + " layers, dim " +
         std::to_string(dim) + ", ffn " + std::to_string(ffn_dim) + ", " + std::to_string(n_heads) + " heads (" +
         std::to_string(n_kv_heads) + " KV) of " + std::to_string(head_dim) + ", vocab " + std::to_string(vocab) +
         ", trained context " + std::to_string(context_length);
}

}  // namespace wgrt::gguf
