// Qwen3: Llama's graph with an RMSNorm over each query and key head before
// RoPE (blk.N.attn_q_norm, attn_k_norm), and a head size independent of the
// width (LlamaConfig::head_dim from attention.key_length).
#include "import/gguf/arch/architectures.h"

namespace wgrt::gguf {
namespace {

class Qwen3Builder : public LlamaBuilder {
 public:
  using LlamaBuilder::LlamaBuilder;

 protected:
  void norm_heads(const std::string& p, ValueId& q4, ValueId& k4, ValueId eps) override {
    rms_norm_heads(p, q4, k4, eps);
  }
};

}  // namespace

std::unique_ptr<LlamaBuilder> make_qwen3_builder(const GgufFile& file, const LlamaConfig& config,
                                                 const LlamaGraphOptions& options) {
  return std::make_unique<Qwen3Builder>(file, config, options);
}

}  // namespace wgrt::gguf
