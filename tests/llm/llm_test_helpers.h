// Helpers the GPU generation tests share: greedy options and a run of
// llm::generate collected as token ids.
#pragma once

#include <string_view>
#include <vector>

#include "llm/generate.h"
#include "llm/llm_model.h"

namespace wgrt::test {

// Greedy decoding of exactly `max_tokens` tokens (EOS ignored).
inline llm::GenerateOptions greedy_options(int32_t max_tokens) {
  llm::GenerateOptions o;
  o.max_tokens = max_tokens;
  o.ignore_eos = true;
  o.sampler.temperature = 0;
  return o;
}

// The tokens `model` generates for `prompt` from an empty cache (its
// selected slot's).
inline std::vector<llm::TokenId> generate_tokens(llm::LlmModel& model, const std::vector<llm::TokenId>& prompt,
                                                 const llm::GenerateOptions& options) {
  model.reset();
  std::vector<llm::TokenId> out;
  llm::generate(model, prompt, options, [&](llm::TokenId id, std::string_view) {
    if (id >= 0) out.push_back(id);
    return true;
  });
  return out;
}

}  // namespace wgrt::test
