// Phi-3: Llama's graph over fused matrices: blk.N.attn_qkv holds the rows of
// Q, then K, then V, and blk.N.ffn_up the gate's rows, then up's. Each part
// becomes a constant of its own rows (whole rows: the stored blocks are
// kept), so the fusion passes see the three and two linears they stack again.
#include "import/gguf/arch/architectures.h"

namespace wgrt::gguf {
namespace {

class Phi3Builder : public LlamaBuilder {
 public:
  using LlamaBuilder::LlamaBuilder;

 protected:
  std::array<ValueId, 3> project_qkv(const std::string& p, ValueId n1) override {
    const std::string qkv = p + "attn_qkv.weight";
    if (!f_.find_tensor(qkv)) return LlamaBuilder::project_qkv(p, n1);
    const int64_t q = c_.n_heads * c_.head_dim, kv = c_.n_kv_heads * c_.head_dim;
    expect_rows(qkv, q + 2 * kv);
    return {linear(n1, weight_rows(qkv, 0, q), qkv, b_.add_null()),
            linear(n1, weight_rows(qkv, q, q + kv), qkv, b_.add_null()),
            linear(n1, weight_rows(qkv, q + kv, q + 2 * kv), qkv, b_.add_null())};
  }

  std::pair<ValueId, ValueId> gate_up(const std::string& p, ValueId n2) override {
    if (f_.find_tensor(p + "ffn_gate.weight")) return LlamaBuilder::gate_up(p, n2);
    const std::string fused = p + "ffn_up.weight";
    expect_rows(fused, 2 * c_.ffn_dim);
    const ValueId gate = linear(n2, weight_rows(fused, 0, c_.ffn_dim), fused, b_.add_null());
    return {gate, linear(n2, weight_rows(fused, c_.ffn_dim, 2 * c_.ffn_dim), fused, b_.add_null())};
  }
};

}  // namespace

std::unique_ptr<LlamaBuilder> make_phi3_builder(const GgufFile& file, const LlamaConfig& config,
                                                const LlamaGraphOptions& options) {
  return std::make_unique<Phi3Builder>(file, config, options);
}

}  // namespace wgrt::gguf
