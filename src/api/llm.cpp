#include "wgrt/llm.h"

#include "api/impl.h"
#include "llm/generate.h"

namespace wgrt::api {

Llm Llm::load(const Runtime& runtime, const LlmOptions& options) {
  llm::LlmLoadOptions o;
  o.path = options.path;
  o.tokenizer_path = options.tokenizer_path;
  o.context = options.context;
  o.chunk = options.chunk;
  o.kv_f16 = options.kv_f16;
  o.graph = detail::engine_options(options.load);
  auto impl = std::make_shared<detail::LlmImpl>();
  impl->runtime = runtime.impl();
  impl->model = llm::LlmModel::load(runtime.impl()->runtime->device(), o);
  return Llm(std::move(impl));
}

std::vector<int32_t> Llm::tokenize(std::string_view text, bool add_special) const {
  return impl_->model->tokenizer().encode(text, add_special, /*parse_special=*/true);
}

std::string Llm::detokenize(std::span<const int32_t> tokens) const { return impl_->model->tokenizer().decode(tokens); }

std::string Llm::apply_chat_template(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const {
  std::vector<llm::ChatMessage> m;
  for (const ChatMessage& x : messages) m.push_back({x.role, x.content});
  return impl_->model->chat_template().apply(m, add_generation_prompt);
}

GenerateResult Llm::generate(std::span<const int32_t> prompt, const GenerateOptions& options,
                             const TextCallback& on_text) {
  llm::GenerateOptions g;
  g.max_tokens = options.max_tokens;
  g.sampler.temperature = options.temperature;
  g.sampler.top_k = options.top_k;
  g.sampler.top_p = options.top_p;
  g.sampler.min_p = options.min_p;
  g.sampler.repeat_penalty = options.repeat_penalty;
  g.sampler.seed = options.seed;
  g.ignore_eos = options.ignore_eos;
  g.gpu_sampling = options.gpu_sampling;
  g.in_flight = options.in_flight;
  GenerateResult r;
  const llm::GenerateStats s = llm::generate(*impl_->model, prompt, g, [&](llm::TokenId id, std::string_view text) {
    if (id >= 0) r.tokens.push_back(id);
    r.text += text;
    return on_text ? on_text(text) : true;
  });
  r.prompt_tokens = s.prompt_tokens;
  r.prompt_tokens_per_second = s.prompt_tokens_per_second();
  r.generate_tokens_per_second = s.generate_tokens_per_second();
  r.stopped_at_eos = s.stopped_at_eos;
  r.context_full = s.context_full;
  return r;
}

GenerateResult Llm::generate(std::string_view prompt, const GenerateOptions& options, const TextCallback& on_text) {
  const std::vector<int32_t> tokens = tokenize(prompt);
  return generate(std::span<const int32_t>(tokens), options, on_text);
}

void Llm::reset() { impl_->model->reset(); }
int64_t Llm::context() const { return impl_->model->context(); }
int64_t Llm::cached_tokens() const { return impl_->model->cached(); }
MemoryStats Llm::memory_stats() const { return impl_->model->memory_stats(); }

}  // namespace wgrt::api
