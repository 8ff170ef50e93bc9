// The log-probabilities a generation reports per token (OpenAI's
// `logprobs`): the log-softmax of the logits the sampler drew from, after
// the logit biases and penalties and before temperature and
// top-k/top-p/min-p, as OpenAI and llama.cpp's server report them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace wgrt::llm {

struct TokenLogprobs {
  float logprob = 0;  // of the token taken
  // The `top_n` most likely tokens and theirs, most likely first (ties: lower id first).
  std::vector<std::pair<int32_t, float>> top;
};

// Computed in double precision over every logit.
TokenLogprobs token_logprobs(std::span<const float> logits, int32_t token, size_t top_n);

}  // namespace wgrt::llm
