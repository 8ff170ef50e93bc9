// The graph builder of the Llama family (llama_graph.h says what it builds).
// LlamaBuilder is Llama's (also Mistral's and Qwen2's, which differ only in
// data: RoPE pairing, biases, bases); each other architecture is a subclass
// in arch/ overriding the steps it changes (the virtual ones below), and
// make_builder picks it by `general.architecture`.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "graph/graph.h"
#include "import/gguf/gguf_file.h"
#include "import/gguf/llama_graph.h"

namespace wgrt::gguf {

class LlamaBuilder {
 public:
  LlamaBuilder(const GgufFile& file, const LlamaConfig& config, const LlamaGraphOptions& options)
      : f_(file), c_(config), opt_(options) {}
  virtual ~LlamaBuilder() = default;

  // Values are added in the order the graph has always had them (inputs,
  // RoPE rows, embedding, constants, the layers, the head): the helpers
  // below only name the steps.
  LlamaGraph build();

 protected:
  // What an architecture changes (arch/*.cpp); the defaults are Llama's.
  // The token embeddings as the first layer reads them (gemma3: scaled).
  virtual ValueId scale_embedding(ValueId h) { return h; }
  // Q, K and V of the normed input: three matrices (phi3: one, rows Q | K | V).
  virtual std::array<ValueId, 3> project_qkv(const std::string& p, ValueId n1);
  // The query and key heads before RoPE (qwen3, gemma3: an RMSNorm over each head).
  virtual void norm_heads(const std::string& /*p*/, ValueId& /*q4*/, ValueId& /*k4*/, ValueId /*eps*/) {}
  // The FFN's gate and up projections of the normed input (phi3: one matrix, gate rows first).
  virtual std::pair<ValueId, ValueId> gate_up(const std::string& p, ValueId n2);
  // act(gate) * up: SwiGLU (gemma3: GELU-tanh).
  virtual ValueId gated(ValueId gate, ValueId up);
  // A block's output before its residual add (gemma3: the sandwich norms).
  virtual ValueId post_norm(ValueId x, const std::string& /*w*/, ValueId /*eps*/) { return x; }

  // What every layer reads: the position inputs, the RoPE rows and shared constants.
  struct Shared {
    ValueId pos = 0, seq = 0, one = 0, eps = 0, null = 0;
    ValueId slot = 0, token_pos = 0, batch_rows = 0, logits_from = 0;  // llama_graph.h's inputs 2-5
    ValueId heads_shape = 0, kv_shape = 0, attn_shape = 0;
    std::pair<ValueId, ValueId> rope_global, rope_local;  // cos, sin rows at each token's position
  };

  // The inputs after tokens and pos (llama_graph.h), into `k`.
  void inputs(Shared& k);

  // The most rows of one batched decode step (and of logits out).
  int64_t max_batch() const { return opt_.slots; }

  // The live sequence length and each token's RoPE table row, into `k`.
  void positions(ValueId tokens, Shared& k);

  // The tokens' embedding rows (scale_embedding applied).
  ValueId embed(ValueId tokens);

  // Layer `l`'s attention block with its residual add: h + attention(norm(h)).
  ValueId attention(int64_t l, const std::string& p, ValueId h, const Shared& k);

  // The feed-forward block with its residual add: h + down(act(gate) * up) of norm(h).
  ValueId feed_forward(const std::string& p, ValueId h, const Shared& k);

  // The output norm and the head, for the rows from logits_from on (the
  // last position of a sequence, or every row of a batched decode step).
  ValueId logits(ValueId h, const Shared& k);

  const TensorInfo& info(const std::string& name) const { return f_.tensor(name); }

  ValueId type_of(const std::string& name) { return b_.add_int(int64_t(info(name).type)); }

  // A weight as a graph constant: f32 vectors read now, as f32; matrices in
  // their stored block format (u8 rows), read from the file as they upload.
  ValueId weight(const std::string& name);

  // Rows [begin, end) of a fused matrix (phi3's QKV, gate|up) as their own
  // constant: whole rows, so the stored blocks are kept as they are.
  ValueId weight_rows(const std::string& name, int64_t begin, int64_t end);

  ValueId vector_weight(const std::string& name);

  // Rows [begin, end) of a matrix as stored, [rows, row bytes]: the op's
  // load-time prepare step puts the blocks into the layout its kernels read.
  ValueId matrix_rows(const TensorInfo& t, int64_t begin, int64_t end);

  ValueId rms_norm(ValueId x, const std::string& w, ValueId eps);
  // Each query and key head's vector normed (blk.N.attn_q_norm, attn_k_norm).
  void rms_norm_heads(const std::string& p, ValueId& q4, ValueId& k4, ValueId eps);

  void expect_rows(const std::string& name, int64_t n) const;

  ValueId linear(ValueId x, const std::string& prefix, int64_t n);

  // x @ w^T (+ bias) with w a matrix constant in the format of tensor `like`.
  ValueId linear(ValueId x, ValueId w, const std::string& like, ValueId bias);

  ValueId scalar(float v);

  ValueId mul(ValueId a, ValueId b);

  ValueId view(ValueId x, ValueId shape, Dims max);

  ValueId add(ValueId a, ValueId b);

  Dims max_dims(ValueId id) const { return b_.tensor(id).max_dims; }

  // cos/sin of pos * theta_i for every position of the context (pair i is
  // (2i, 2i+1) or (i, i + D/2), LlamaConfig::rope_halves).
  std::pair<ValueId, ValueId> rope_tables(double theta, double linear_scale, bool freq_factors);

  const GgufFile& f_;
  const LlamaConfig& c_;
  const LlamaGraphOptions& opt_;
  GraphBuilder b_;
  std::map<std::string, ValueId> weights_;
  size_t total_weights_ = 0;
};

// The builder for config.arch (LlamaConfig::from_gguf accepted it).
std::unique_ptr<LlamaBuilder> make_builder(const GgufFile& file, const LlamaConfig& config,
                                           const LlamaGraphOptions& options);

}  // namespace wgrt::gguf
