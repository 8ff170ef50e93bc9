#include "import/gguf/llama_graph.h"

#include <algorithm>

#include "import/gguf/gguf_file.h"
#include "import/gguf/llama_builder.h"
#include "wgrt/error.h"

namespace wgrt::gguf {
LlamaGraph build_llama_graph(const GgufFile& file, const LlamaGraphOptions& options) {
  const LlamaConfig config = LlamaConfig::from_gguf(file);
  if (options.max_context < 1 || options.max_chunk < 1) {
    throw Error(ErrorCode::InvalidArgument, "context length " + std::to_string(options.max_context) +
                                                " and chunk " + std::to_string(options.max_chunk) +
                                                " must both be at least 1");
  }
  if (options.slots < 1 || options.slots > kMaxSlots) {
    throw Error(ErrorCode::InvalidArgument, "sequences at once (--parallel) must be 1 to " +
                                                std::to_string(kMaxSlots) + ", got " + std::to_string(options.slots));
  }
  // Never longer than the model was trained for; a chunk never longer than that.
  LlamaGraphOptions capped = options;
  capped.max_context = std::min(options.max_context, config.context_length);
  capped.max_chunk = std::min(options.max_chunk, capped.max_context);
  if (capped.slots > capped.max_chunk) {  // a batched step is one pass of `slots` rows
    throw Error(ErrorCode::InvalidArgument, std::to_string(capped.slots) + " sequences at once need a chunk of at least " +
                                                std::to_string(capped.slots) + " tokens, got " +
                                                std::to_string(capped.max_chunk));
  }
  auto& [first, end] = capped.layers;
  if (end < 0) end = config.n_layers;
  if (first < 0 || first >= end || end > config.n_layers) {
    throw Error(ErrorCode::InvalidArgument, "layers [" + std::to_string(first) + ", " + std::to_string(end) +
                                                ") of a model with " + std::to_string(config.n_layers) + " layers");
  }
  return make_builder(file, config, capped)->build();
}

}  // namespace wgrt::gguf
