// One builder per Llama-family architecture that differs from Llama in more
// than data (llama_builder.h); make_builder's table maps the rest to Llama's.
#pragma once

#include <memory>

#include "import/gguf/llama_builder.h"

namespace wgrt::gguf {

std::unique_ptr<LlamaBuilder> make_qwen3_builder(const GgufFile& file, const LlamaConfig& config,
                                                 const LlamaGraphOptions& options);
std::unique_ptr<LlamaBuilder> make_phi3_builder(const GgufFile& file, const LlamaConfig& config,
                                                const LlamaGraphOptions& options);
std::unique_ptr<LlamaBuilder> make_gemma3_builder(const GgufFile& file, const LlamaConfig& config,
                                                  const LlamaGraphOptions& options);

}  // namespace wgrt::gguf
