// From a parsed request to what the generation loop runs: the prompt's
// tokens (the chat template applied for chat requests) and the generation
// options, checked against the model's context. Runs on the HTTP thread and
// reads only the model's tokenizer, chat template and sizes (fixed after
// loading: api::Llm's "any thread" calls), never its GPU state.
#pragma once

#include <vector>

#include "server/openai_request.h"
#include "wgrt/llm.h"

namespace wgrt::server {

struct PreparedGeneration {
  std::vector<int32_t> prompt;
  api::GenerateOptions options;
  bool cache_prompt = true;  // reuse the cached prefix the prompt repeats
};

// ApiError(400) for a prompt that leaves no room in the context, a
// max_tokens that does not fit beside it, or token ids outside the vocabulary.
PreparedGeneration prepare_generation(const api::Llm& model, const GenerationRequest& request);

}  // namespace wgrt::server
