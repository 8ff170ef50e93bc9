// The generation loop: prefill the prompt, then sample and feed back one
// token at a time, streaming text as it completes, until EOS, a stop string,
// the token budget, a full context, or the caller says stop.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "llm/llm_model.h"
#include "llm/sampler.h"
#include "llm/stop_strings.h"
#include "llm/tokenizer/utf8_stream.h"

namespace wgrt::llm {

struct GenerateOptions {
  int32_t max_tokens = 128;
  SamplerOptions sampler;
  // Checked between tokens; set from a signal handler to stop cleanly.
  const std::atomic<bool>* cancel = nullptr;
  bool ignore_eos = false;
  // Generation ends where the text first contains one of these; the stop
  // string is not part of the output.
  std::vector<std::string> stop;
  // Sees each logits vector a token is sampled from: the prompt's last
  // position first, then one per decode step.
  std::function<void(std::span<const float>)> on_logits;
};

struct GenerateStats {
  size_t prompt_tokens = 0;
  size_t generated_tokens = 0;
  double prompt_seconds = 0;    // prefill, including the first token's logits
  double generate_seconds = 0;  // every decode step after that
  bool stopped_at_eos = false;
  bool stopped_at_stop_string = false;
  bool cancelled = false;
  bool context_full = false;

  double prompt_tokens_per_second() const { return prompt_seconds > 0 ? prompt_tokens / prompt_seconds : 0; }
  double generate_tokens_per_second() const {
    return generate_seconds > 0 ? generated_tokens / generate_seconds : 0;
  }
};

// The same loop one token at a time, for callers that pull (a Python
// iterator): each next() returns the next token and the text it completes;
// after the last token, one more step with token -1 carries any text still
// held back (an unfinished UTF-8 sequence), then next() returns nothing.
class Generation {
 public:
  struct Step {
    TokenId token = -1;
    std::string text;
  };
  // Nothing runs until the first next(), which runs the prompt.
  Generation(LlmModel& model, std::span<const TokenId> prompt, const GenerateOptions& options);
  std::optional<Step> next();
  // Ends the loop early: the next next() returns the held-back text, if any.
  void stop() { stopping_ = true; }
  const GenerateStats& stats() const { return stats_; }

 private:
  std::optional<Step> finish();

  LlmModel& model_;
  GenerateOptions options_;
  Sampler sampler_;
  StreamDecoder decoder_;
  StopStrings stops_;
  std::vector<TokenId> history_;
  std::span<const float> logits_;
  GenerateStats stats_;
  bool started_ = false, stopping_ = false, finished_ = false;
  int32_t produced_ = 0;
};

// Called with each generated token and the text it completes ("" while a
// UTF-8 sequence is unfinished). Return false to stop.
using TokenCallback = std::function<bool(TokenId, std::string_view)>;

// Continues from the model's current cache with `prompt` appended.
GenerateStats generate(LlmModel& model, std::span<const TokenId> prompt, const GenerateOptions& options,
                       const TokenCallback& on_token);

}  // namespace wgrt::llm
