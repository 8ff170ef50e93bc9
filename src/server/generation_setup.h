// From a parsed request to what the generation loop runs: the prompt's
// tokens (the chat template applied for chat requests) and the generation
// options, checked against the model's context. Runs on the HTTP thread and
// reads only the model's tokenizer, chat template and context length (fixed
// after loading), never its GPU state.
#pragma once

#include <vector>

#include "llm/generate.h"
#include "llm/llm_model.h"
#include "server/openai_request.h"

namespace wgrt::server {

struct PreparedGeneration {
  std::vector<llm::TokenId> prompt;
  llm::GenerateOptions options;
};

// ApiError(400) for a prompt that leaves no room in the context, a
// max_tokens that does not fit beside it, or token ids outside the vocabulary.
PreparedGeneration prepare_generation(const llm::LlmModel& model, const GenerationRequest& request);

}  // namespace wgrt::server
