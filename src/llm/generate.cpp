#include "llm/generate.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <utility>
#include <vector>

#include "gpu/command_batch.h"
#include "wgrt/error.h"

namespace wgrt::llm {
namespace {

using Clock = std::chrono::steady_clock;
// A generation draws with row 0 of the model's sampler (a batch's rows are its slots).
constexpr uint32_t kRow = 0;
constexpr std::array<uint32_t, 1> kRows = {kRow};

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

ops::SamplingParams gpu_sampling_params(const SamplerOptions& o) {
  ops::SamplingParams p;
  p.temperature = o.temperature;
  p.top_k = o.top_k;
  p.top_p = o.top_p;
  p.min_p = o.min_p;
  p.repeat_penalty = o.repeat_penalty;
  p.presence_penalty = o.presence_penalty;
  p.frequency_penalty = o.frequency_penalty;
  p.logit_bias = o.logit_bias;
  p.repeat_window = o.repeat_window;
  p.seed = o.seed;
  return p;
}

void validate(const GenerateOptions& options, int64_t vocab) {
  ops::GpuSampler::validate(gpu_sampling_params(options.sampler), vocab > 0 ? vocab : std::numeric_limits<int32_t>::max());
  if (options.max_tokens < 0) {
    throw Error(ErrorCode::InvalidArgument, "max tokens must be >= 0, got " + std::to_string(options.max_tokens));
  }
  if (options.logprobs > kMaxTopLogprobs) {
    throw Error(ErrorCode::InvalidArgument, "top logprobs must be at most " + std::to_string(kMaxTopLogprobs) +
                                                ", got " + std::to_string(options.logprobs));
  }
  if (options.in_flight < 1) {
    throw Error(ErrorCode::InvalidArgument,
                "steps in flight must be >= 1 (1 waits for each token), got " + std::to_string(options.in_flight));
  }
}

Generation::Generation(LlmModel& model, std::span<const TokenId> prompt, const GenerateOptions& options)
    : model_(model),
      options_((validate(options, model.sampling_vocab()), options)),
      sampler_(options.sampler),
      decoder_(model.tokenizer()),
      stops_(options.stop),
      prompt_(prompt.begin(), prompt.end()) {
  // Penalties look back over the whole context, so a prompt whose start is
  // already cached (a chat's next turn) samples as the whole prompt would.
  for (TokenId t : model.cached_ids()) {
    if (t >= 0) history_.push_back(t);
  }
  history_.insert(history_.end(), prompt.begin(), prompt.end());
  json_ = make_token_constraint(model, options);
  options_.gpu_sampling = options.gpu_sampling && !options.on_logits;
  stats_.prompt_tokens = prompt.size();
}

Generation::~Generation() {
  try {
    drop_in_flight();
  } catch (...) {  // a lost device: nothing left in flight
  }
}

std::optional<Generation::Step> Generation::finish() {
  finished_ = true;
  drop_in_flight();
  std::string rest = stops_.push(decoder_.finish());
  if (stops_.matched()) stats_.stopped_at_stop_string = true;
  rest += stops_.flush();
  if (rest.empty()) return std::nullopt;
  return Step{-1, std::move(rest), std::nullopt};
}

void Generation::drop_in_flight() {
  if (!started_) return;
  if (ring_ && queued_ > 0) {
    ring_->discard_all();
    if (logits_ring_) logits_ring_->discard_all();
    pending_.clear();
    queued_ = 0;
    forward_queued_ = false;
  }
  // The cache keeps the prompt and every token taken but the last, however
  // generation ended, so a caller continues by feeding that last token.
  const int64_t keep = prompt_end_ + std::max<int64_t>(0, produced_ - 1);
  if (model_.cached() > keep) model_.rewind(keep);
}

void Generation::start_on_gpu() {
  const uint32_t vocab = uint32_t(model_.sampling_vocab());
  ops::SamplingParams params = gpu_sampling_params(options_.sampler);
  params.token_mask = json_ != nullptr;
  ring_ = std::make_unique<gpu::ReadbackRing>(model_.device(), size_t(options_.in_flight), sizeof(int32_t));
  if (options_.logprobs >= 0) {
    // The sampler penalises the logits in place: copied after it, they are
    // what the draw used, as logprobs report them.
    logits_ring_ = std::make_unique<gpu::ReadbackRing>(model_.device(), ring_->slots(), uint64_t(vocab) * sizeof(float));
    host_logits_.resize(vocab);
  }
  model_.sampler().configure(kRow, params, {}, history_);
  if (json_) {
    model_.submit(prompt_, {}, {});
    prompt_end_ = model_.cached();
    // No forward pass queued behind the first draw: the time to the first
    // token is the prompt's alone (see next()).
    if (options_.max_tokens > 0) {
      if (!find_mask()) throw_dead_end();
      submit_draw();
    }
    return;
  }
  const size_t slot = next_slot_;
  next_slot_ = (next_slot_ + 1) % ring_->slots();
  model_.submit(prompt_, kRows, [this, slot](gpu::CommandBatch& batch) { record_copies(batch, slot); });
  request_draw(slot);
  queued_ = 1;
  prompt_end_ = model_.cached();
}

void Generation::record_copies(gpu::CommandBatch& batch, size_t slot) {
  ring_->record_copy(batch, model_.token_buffer(), 0, slot);
  if (logits_ring_) logits_ring_->record_copy(batch, model_.logits_buffer(), 0, slot);
}

void Generation::request_draw(size_t slot) {
  ring_->request(slot, model_.last_submission());
  if (logits_ring_) logits_ring_->request(slot, model_.last_submission());
  pending_.push_back(slot);
}

TokenId Generation::take_draw() {
  const size_t slot = pending_.front();
  pending_.pop_front();
  int32_t token = -1;
  ring_->take(slot, &token);
  if (token < 0 || token >= model_.sampling_vocab()) {
    throw Error(ErrorCode::InvalidArgument,
                "sampling found no token to draw: the logits hold NaN or infinite values (the model's weights, or a "
                "penalty or bias that overflows)");
  }
  if (logits_ring_) {
    logits_ring_->take(slot, host_logits_.data());
    logprobs_ = token_logprobs(host_logits_, token, size_t(options_.logprobs));
  }
  return token;
}

void Generation::fill_pipeline() {
  while (pending_.size() < size_t(options_.in_flight) && queued_ < options_.max_tokens &&
         model_.cached() < model_.context()) {
    const size_t slot = next_slot_;
    next_slot_ = (next_slot_ + 1) % ring_->slots();
    model_.submit_fed(kRows, [this, slot](gpu::CommandBatch& batch) { record_copies(batch, slot); });
    request_draw(slot);
    ++queued_;
  }
}

std::unique_ptr<TokenConstraint> make_token_constraint(const LlmModel& model, const GenerateOptions& options) {
  if (options.json_schema) {
    return std::make_unique<JsonSchemaConstraint>(model.token_texts(), JsonSchemaMatcher(options.json_schema));
  }
  if (options.json_object) return std::make_unique<JsonObjectConstraint>(model.token_texts(), JsonObjectPrefix());
  if (options.grammar) return std::make_unique<GrammarConstraint>(model.token_texts(), GrammarMatcher(options.grammar));
  return nullptr;
}

size_t constraint_mask(const TokenConstraint& constraint, size_t vocab, std::vector<uint8_t>& allowed,
                       std::vector<uint32_t>& words) {
  const size_t count = constraint.allowed(vocab, allowed);
  words.assign((vocab + 31) / 32, 0);
  for (size_t i = 0; i < vocab; ++i) words[i / 32] |= uint32_t(allowed[i] != 0) << (i % 32);
  return count;
}

std::string dead_end_message(const GenerateOptions& options, int64_t generated) {
  return std::string(options.json_schema ? "json_schema"
                     : options.grammar   ? "grammar"
                                         : "json_object") +
         ": no token can continue the JSON text after " + std::to_string(generated) + " generated tokens";
}

void Generation::throw_dead_end() const {
  throw Error(ErrorCode::InvalidArgument, dead_end_message(options_, produced_));
}

bool Generation::find_mask() {
  allowed_count_ = constraint_mask(*json_, size_t(model_.sampling_vocab()), allowed_, mask_words_);
  return allowed_count_ > 0;
}

void Generation::submit_draw() {
  model_.sampler().set_mask(kRow, mask_words_);
  const size_t slot = next_slot_;
  next_slot_ = (next_slot_ + 1) % ring_->slots();
  model_.draw(kRows, [this, slot](gpu::CommandBatch& batch) { record_copies(batch, slot); });
  request_draw(slot);
  ++queued_;
}

void Generation::queue_masked_step() {
  const bool next_forward = queued_ + 1 < options_.max_tokens && model_.cached() < model_.context();
  bool dead_end = false;
  auto draw = [&] {
    dead_end = !find_mask();
    if (!dead_end) submit_draw();
  };
  if (next_forward && model_.device_count() == 1 && model_.graph().submits_once()) {
    // The next forward pass is encoded first, while the GPU still runs this
    // step's; the hook, which runs before that pass is submitted, finds the
    // mask and submits the draw, so the GPU goes from the draw straight into
    // the pass. (A pass past a dead end is dropped like any step in flight.)
    model_.submit_fed({}, [&](gpu::CommandBatch&) { draw(); });
    forward_queued_ = true;
  } else {
    // A model split across devices reads the drawn token back before its
    // first part runs, and a pass submitted in pieces (Tuning::submit_every)
    // would start before the hook: the draw goes first.
    draw();
    if (!dead_end && next_forward) {
      model_.submit_fed({}, {});
      forward_queued_ = true;
    }
  }
  if (dead_end) throw_dead_end();
}

TokenId Generation::take_masked() {
  const TokenId token = take_draw();
  json_->accept(token);
  return token;
}

std::optional<TokenId> Generation::next_token_on_gpu() {
  if (json_) {
    if (!std::exchange(forward_queued_, false)) {  // after the first token, or a step that could not queue one
      if (model_.cached() >= model_.context()) {
        stats_.context_full = true;
        return std::nullopt;
      }
      model_.submit_fed({}, {});
    }
    queue_masked_step();
    const auto t0 = Clock::now();
    const TokenId token = take_masked();
    stats_.wait_seconds += seconds_since(t0);
    return token;
  }
  fill_pipeline();
  if (pending_.empty()) {
    stats_.context_full = true;
    return std::nullopt;
  }
  const auto t0 = Clock::now();
  const TokenId token = take_draw();
  stats_.wait_seconds += seconds_since(t0);
  return token;
}

std::optional<TokenId> Generation::next_token() {
  if (options_.gpu_sampling) return next_token_on_gpu();
  if (produced_ > 0) {  // the logits after the last token, run only when asked for
    if (model_.cached() >= model_.context()) {
      stats_.context_full = true;
      return std::nullopt;
    }
    const TokenId last = history_.back();
    logits_ = forward_masked(std::span(&last, 1));
    if (options_.on_logits) options_.on_logits(logits_);
  }
  std::span<const float> logits = logits_.first(size_t(model_.sampling_vocab()));
  if (json_) {
    masked_.assign(logits.begin(), logits.end());
    TokenConstraint::apply(allowed_, masked_);
    if (allowed_count_ == 0) throw_dead_end();
    logits = masked_;
  }
  const TokenId token = sampler_.sample(logits, history_);
  if (json_) json_->accept(token);
  if (options_.logprobs >= 0) logprobs_ = token_logprobs(sampler_.adjusted_logits(), token, size_t(options_.logprobs));
  return token;
}

std::span<const float> Generation::forward_masked(std::span<const TokenId> tokens) {
  if (!json_) return model_.forward(tokens);
  const size_t vocab = size_t(model_.model_vocab());
  if (!masked_ring_) masked_ring_ = std::make_unique<gpu::ReadbackRing>(model_.device(), 1, vocab * sizeof(float));
  model_.submit(tokens, {}, [this](gpu::CommandBatch& batch) {
    masked_ring_->record_copy(batch, model_.logits_buffer(), 0, 0);
  });
  masked_ring_->request(0, model_.last_submission());
  // The mask needs only the text so far: the CPU finds it while the GPU runs.
  allowed_count_ = json_->allowed(size_t(model_.sampling_vocab()), allowed_);
  host_logits_.resize(vocab);
  masked_ring_->take(0, host_logits_.data());
  return host_logits_;
}

std::optional<Generation::Step> Generation::next() {
  if (finished_) return std::nullopt;
  if (!started_) {
    started_ = true;
    const auto t0 = Clock::now();
    if (options_.gpu_sampling) {
      start_on_gpu();
      if (options_.max_tokens > 0) {
        // Time to the first token: the prompt, its draw and the readback.
        // The decode steps are queued after it (next_token_on_gpu): where
        // submit runs the work itself (lavapipe, SwiftShader), queueing them
        // first would put their work into the time to the first token, and
        // the tokens/s from there on would leave it out.
        first_ = json_ ? take_masked() : take_draw();
      }
    } else {
      logits_ = forward_masked(prompt_);
      prompt_end_ = model_.cached();
      if (options_.on_logits) options_.on_logits(logits_);
    }
    stats_.prompt_seconds = seconds_since(t0);
  }
  if (stopping_ || produced_ >= options_.max_tokens) return finish();
  if (options_.cancel && options_.cancel->load()) {
    stats_.cancelled = true;
    return finish();
  }
  const auto t0 = Clock::now();
  std::optional<TokenId> token = first_;
  first_.reset();
  if (!token) token = next_token();
  stats_.generate_seconds += seconds_since(t0);
  if (!token) return finish();
  if (!options_.ignore_eos && model_.tokenizer().is_end_of_generation(*token)) {
    stats_.stopped_at_eos = true;
    return finish();
  }
  history_.push_back(*token);
  model_.note_fed_token(prompt_end_ + produced_, *token);  // where the next step feeds it (GPU sampling)
  ++produced_;
  ++stats_.generated_tokens;
  std::string text = stops_.push(decoder_.push(*token));
  if (stops_.matched()) {
    stats_.stopped_at_stop_string = true;
    finished_ = true;  // the text after the stop string is never shown
    drop_in_flight();
  }
  return Step{*token, std::move(text), std::exchange(logprobs_, std::nullopt)};
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
