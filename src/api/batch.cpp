// api::Batch and Llm::generate_batch over llm::BatchGenerator.
#include "wgrt/batch.h"

#include "api/impl.h"
#include "llm/batch_generation.h"
#include "wgrt/error.h"

namespace wgrt::api {

struct Batch::State {
  std::shared_ptr<detail::LlmImpl> llm;  // kept alive while generating
  llm::BatchGenerator generator;
};

Batch::Batch(Llm& llm, int32_t in_flight)
    : state_(new State{llm.impl_, llm::BatchGenerator(*llm.impl_->model, in_flight)}) {}
Batch::~Batch() = default;

bool Batch::accepts(const GenerateOptions& o) {
  return o.gpu_sampling && !o.on_logits && o.logprobs < 0;
}

uint64_t Batch::add(std::vector<int32_t> prompt, const GenerateOptions& options, BatchCallbacks callbacks,
                    bool cache_prompt) {
  llm::BatchRequest r;
  r.prompt = std::move(prompt);
  r.options = detail::engine_generate_options(options);
  r.cache_prompt = cache_prompt;
  r.on_token = std::move(callbacks.on_token);
  if (callbacks.on_done) {
    r.on_done = [done = std::move(callbacks.on_done)](const llm::GenerateStats& s, const std::string& error) {
      GenerateResult result;
      detail::copy_generate_stats(s, result);
      done(result, error);
    };
  }
  return state_->generator.add(std::move(r));
}

void Batch::cancel(uint64_t id) { state_->generator.cancel(id); }
bool Batch::step() { return state_->generator.step(); }
void Batch::run() { state_->generator.run(); }
size_t Batch::running() const { return state_->generator.running(); }
size_t Batch::waiting() const { return state_->generator.waiting(); }
void Batch::time_next_step() { state_->generator.time_next_step(); }

std::vector<DispatchTime> Batch::last_timed_step() const {
  return detail::dispatch_times(state_->generator.step_timings());
}

std::vector<GenerateResult> Llm::generate_batch(std::span<const std::vector<int32_t>> prompts,
                                                const GenerateOptions& options) {
  if (prompts.empty()) throw Error(ErrorCode::InvalidArgument, "generate_batch: no prompts");
  if (!Batch::accepts(options)) {
    throw Error(ErrorCode::NotSupported, "generate_batch samples on the GPU: logprobs, on_logits or CPU "
                                         "sampling need Llm::generate");
  }
  Batch batch(*this, options.in_flight);
  std::vector<GenerateResult> results(prompts.size());
  std::vector<std::string> errors(prompts.size());
  for (size_t i = 0; i < prompts.size(); ++i) {
    BatchCallbacks callbacks;
    GenerateResult* r = &results[i];
    std::string* error = &errors[i];
    callbacks.on_token = [r](int32_t token, std::string_view text) {
      if (token >= 0) r->tokens.push_back(token);
      r->text += text;
      return true;
    };
    callbacks.on_done = [r, error](const GenerateResult& done, const std::string& e) {
      GenerateResult copy = done;
      copy.tokens = std::move(r->tokens);
      copy.text = std::move(r->text);
      *r = std::move(copy);
      *error = e;
    };
    try {
      batch.add(prompts[i], options, std::move(callbacks));
    } catch (const Error& e) {
      throw Error(e.code(), "generate_batch: prompt " + std::to_string(i) + ": " + e.what());
    }
  }
  batch.run();
  for (size_t i = 0; i < errors.size(); ++i) {
    if (!errors[i].empty()) {
      throw Error(ErrorCode::InvalidArgument, "generate_batch: prompt " + std::to_string(i) + ": " + errors[i]);
    }
  }
  return results;
}

int64_t Llm::parallel() const { return int64_t(impl_->model->slots()); }

}  // namespace wgrt::api
