// Gemma 3 (text): embeddings scaled by sqrt(dim), an RMSNorm over each query
// and key head, GELU (tanh) instead of SiLU in the FFN, and sandwich norms:
// each block's output is normed again before its residual add
// (post_attention_norm, post_ffw_norm; the norm weights carry Gemma's 1 + w
// as llama.cpp's converter stores them). Sliding-window layers and their
// RoPE base are data (LlamaConfig::sliding_window, rope_theta_swa).
#include "import/gguf/arch/architectures.h"

#include <cmath>

namespace wgrt::gguf {
namespace {

class Gemma3Builder : public LlamaBuilder {
 public:
  using LlamaBuilder::LlamaBuilder;

 protected:
  ValueId scale_embedding(ValueId h) override { return mul(h, scalar(float(std::sqrt(double(c_.dim))))); }

  void norm_heads(const std::string& p, ValueId& q4, ValueId& k4, ValueId eps) override {
    rms_norm_heads(p, q4, k4, eps);
  }

  ValueId gated(ValueId gate, ValueId up) override {
    const ValueId prod = b_.add_tensor(DType::F32, max_dims(gate));
    const ValueId act = b_.add_tensor(DType::F32, max_dims(gate));
    b_.add_op("aten.gelu.default", {gate, b_.add_string("tanh"), act});
    b_.add_op("aten.mul.Tensor", {act, up, prod});
    return prod;
  }

  ValueId post_norm(ValueId x, const std::string& w, ValueId eps) override { return rms_norm(x, w, eps); }
};

}  // namespace

std::unique_ptr<LlamaBuilder> make_gemma3_builder(const GgufFile& file, const LlamaConfig& config,
                                                  const LlamaGraphOptions& options) {
  return std::make_unique<Gemma3Builder>(file, config, options);
}

}  // namespace wgrt::gguf
