#include "import/gguf/arch/architectures.h"

#include "wgrt/error.h"

namespace wgrt::gguf {

std::unique_ptr<LlamaBuilder> make_builder(const GgufFile& file, const LlamaConfig& config,
                                           const LlamaGraphOptions& options) {
  // Mistral and Qwen2 are Llama's graph with other data (RoPE pairing, QKV biases).
  if (config.arch == "llama" || config.arch == "mistral" || config.arch == "qwen2") {
    return std::make_unique<LlamaBuilder>(file, config, options);
  }
  if (config.arch == "qwen3") return make_qwen3_builder(file, config, options);
  if (config.arch == "phi3") return make_phi3_builder(file, config, options);
  if (config.arch == "gemma3") return make_gemma3_builder(file, config, options);
  throw Error(ErrorCode::NotSupported, file.name() + ": no graph builder for architecture '" + config.arch + "'");
}

}  // namespace wgrt::gguf
