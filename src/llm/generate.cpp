#include "llm/generate.h"

#include <chrono>
#include <vector>

#include "llm/tokenizer/utf8_stream.h"

namespace wgrt::llm {

GenerateStats generate(LlmModel& model, std::span<const TokenId> prompt, const GenerateOptions& options,
                       const TokenCallback& on_token) {
  using Clock = std::chrono::steady_clock;
  GenerateStats stats;
  stats.prompt_tokens = prompt.size();
  Sampler sampler(options.sampler);
  StreamDecoder decoder(model.tokenizer());
  std::vector<TokenId> history(prompt.begin(), prompt.end());

  auto t0 = Clock::now();
  std::span<const float> logits = model.forward(prompt);
  stats.prompt_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (options.on_prompt_logits) options.on_prompt_logits(logits);

  t0 = Clock::now();
  for (int32_t i = 0; i < options.max_tokens; ++i) {
    if (options.cancel && options.cancel->load()) {
      stats.cancelled = true;
      break;
    }
    const TokenId next = sampler.sample(logits, history);
    if (!options.ignore_eos && model.tokenizer().is_end_of_generation(next)) {
      stats.stopped_at_eos = true;
      break;
    }
    history.push_back(next);
    ++stats.generated_tokens;
    if (on_token && !on_token(next, decoder.push(next))) break;
    if (i + 1 == options.max_tokens) break;  // no logits needed after the last token
    if (model.cached() >= model.context()) {
      stats.context_full = true;
      break;
    }
    logits = model.forward(std::span(&next, 1));
  }
  stats.generate_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (on_token) {
    const std::string rest = decoder.finish();
    if (!rest.empty()) on_token(-1, rest);
  }
  return stats;
}

}  // namespace wgrt::llm
