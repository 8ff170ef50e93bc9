// Picks the next token from logits: logit biases and the repetition,
// presence and frequency penalties, then greedy at temperature 0, otherwise
// temperature, top-k, top-p and min-p filtering and a draw from a seeded
// generator (the same seed gives the same tokens).
//
// This is the reference that the GPU sampler (ops/sampling/) must match:
// distribution() is the exact law of the next token. Candidates are ordered by
// logit, then by lower token id, so ties have one defined answer.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <utility>
#include <vector>

namespace wgrt::llm {

struct SamplerOptions {
  float temperature = 0.8f;      // 0: greedy
  int32_t top_k = 40;            // 0: off
  float top_p = 0.95f;           // 1: off
  float min_p = 0.05f;           // 0: off; relative to the most likely token
  float repeat_penalty = 1.0f;   // 1: off; applied to the last repeat_window tokens
  // OpenAI's, over the same window: subtracted once from each distinct
  // token's logit (presence) and once per occurrence (frequency); 0: off.
  float presence_penalty = 0.0f;
  float frequency_penalty = 0.0f;
  int32_t repeat_window = 64;
  uint64_t seed = 0;
  // Added to those tokens' logits before the penalties (OpenAI's logit_bias).
  std::vector<std::pair<int32_t, float>> logit_bias;
};

class Sampler {
 public:
  // Throws Error(InvalidArgument) naming the option that is out of range.
  explicit Sampler(const SamplerOptions& options);

  // `history` holds earlier tokens (prompt and generated) for the penalty.
  int32_t sample(std::span<const float> logits, std::span<const int32_t> history);

  // The tokens that may come next and their probabilities (summing to 1), in
  // candidate order; one token with probability 1 when greedy.
  std::vector<std::pair<int32_t, double>> distribution(std::span<const float> logits,
                                                       std::span<const int32_t> history);

  const SamplerOptions& options() const { return options_; }
  // The logits the last sample() or distribution() drew from: the given
  // ones after the biases and penalties, before temperature and filtering
  // (what OpenAI's logprobs are the log-softmax of).
  std::span<const float> adjusted_logits() const { return scratch_; }

 private:
  SamplerOptions options_;
  std::mt19937_64 rng_;
  std::vector<float> scratch_;
  std::vector<int32_t> order_;
  std::vector<double> weights_;
};

}  // namespace wgrt::llm
