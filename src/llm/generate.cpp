#include "llm/generate.h"

#include <chrono>
#include <vector>

namespace wgrt::llm {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

Generation::Generation(LlmModel& model, std::span<const TokenId> prompt, const GenerateOptions& options)
    : model_(model),
      options_(options),
      sampler_(options.sampler),
      decoder_(model.tokenizer()),
      stops_(options.stop),
      history_(prompt.begin(), prompt.end()) {
  stats_.prompt_tokens = prompt.size();
}

std::optional<Generation::Step> Generation::finish() {
  finished_ = true;
  std::string rest = stops_.push(decoder_.finish());
  if (stops_.matched()) stats_.stopped_at_stop_string = true;
  rest += stops_.flush();
  if (rest.empty()) return std::nullopt;
  return Step{-1, std::move(rest)};
}

std::optional<Generation::Step> Generation::next() {
  if (finished_) return std::nullopt;
  if (!started_) {
    started_ = true;
    const auto t0 = Clock::now();
    logits_ = model_.forward(history_);
    stats_.prompt_seconds = seconds_since(t0);
    if (options_.on_logits) options_.on_logits(logits_);
  }
  if (stopping_ || produced_ >= options_.max_tokens) return finish();
  if (options_.cancel && options_.cancel->load()) {
    stats_.cancelled = true;
    return finish();
  }
  const auto t0 = Clock::now();
  if (produced_ > 0) {  // the logits after the last token, run only when asked for
    if (model_.cached() >= model_.context()) {
      stats_.context_full = true;
      return finish();
    }
    const TokenId last = history_.back();
    logits_ = model_.forward(std::span(&last, 1));
    if (options_.on_logits) options_.on_logits(logits_);
  }
  const TokenId token = sampler_.sample(logits_, history_);
  stats_.generate_seconds += seconds_since(t0);
  if (!options_.ignore_eos && model_.tokenizer().is_end_of_generation(token)) {
    stats_.stopped_at_eos = true;
    return finish();
  }
  history_.push_back(token);
  ++produced_;
  ++stats_.generated_tokens;
  std::string text = stops_.push(decoder_.push(token));
  if (stops_.matched()) {
    stats_.stopped_at_stop_string = true;
    finished_ = true;  // the text after the stop string is never shown
  }
  return Step{token, std::move(text)};
}

GenerateStats generate(LlmModel& model, std::span<const TokenId> prompt, const GenerateOptions& options,
                       const TokenCallback& on_token) {
  Generation gen(model, prompt, options);
  while (std::optional<Generation::Step> step = gen.next()) {
    if (on_token && !on_token(step->token, step->text)) gen.stop();
  }
  return gen.stats();
}

}  // namespace wgrt::llm
