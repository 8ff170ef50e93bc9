#include "wgrt/llm.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "api/impl.h"
#include "llm/generate.h"
#include "llm/jinja/jinja.h"

namespace wgrt::api {

static_assert(kMaxTopLogprobs == llm::kMaxTopLogprobs, "one limit for both layers");

namespace {

llm::GenerateOptions engine_options(const GenerateOptions& options) {
  llm::GenerateOptions g;
  g.max_tokens = options.max_tokens;
  g.sampler.temperature = options.temperature;
  g.sampler.top_k = options.top_k;
  g.sampler.top_p = options.top_p;
  g.sampler.min_p = options.min_p;
  g.sampler.repeat_penalty = options.repeat_penalty;
  g.sampler.presence_penalty = options.presence_penalty;
  g.sampler.frequency_penalty = options.frequency_penalty;
  g.sampler.logit_bias = options.logit_bias;
  g.sampler.seed = options.seed;
  g.ignore_eos = options.ignore_eos;
  g.gpu_sampling = options.gpu_sampling;
  g.in_flight = options.in_flight;
  g.stop = options.stop;
  g.cancel = options.cancel;
  g.on_logits = options.on_logits;
  g.logprobs = options.logprobs;
  g.json_object = options.json_object;
  g.json_schema = options.json_schema;
  g.grammar = options.grammar;
  return g;
}

// A device for each adapter LlmOptions::devices names (but the first when
// `skip_first`), made like the runtime's.
void open_split_devices(const LlmOptions& options, gpu::DeviceOptions like, bool skip_first,
                        std::vector<std::unique_ptr<gpu::Device>>& out) {
  const std::vector<int>& d = options.devices;
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i] < 0) {
      throw Error(ErrorCode::InvalidArgument, "devices: entry " + std::to_string(i) + " is " + std::to_string(d[i]) +
                                                  "; adapters count from 0 (wgrt info lists them)");
    }
    for (size_t j = 0; j < i && !options.devices_may_repeat_for_test; ++j) {
      if (d[j] == d[i]) {
        throw Error(ErrorCode::InvalidArgument, "devices: adapter " + std::to_string(d[i]) +
                                                    " is named twice (entries " + std::to_string(j) + " and " +
                                                    std::to_string(i) + ")");
      }
    }
  }
  for (size_t i = skip_first ? 1 : 0; i < d.size(); ++i) {
    like.adapter = d[i];
    out.push_back(gpu::Device::create(like));
  }
}

}  // namespace

void validate(const GenerateOptions& options, int64_t vocab) { llm::validate(engine_options(options), vocab); }

Llm Llm::load(const Runtime& runtime, const LlmOptions& options) {
  llm::LlmLoadOptions o;
  o.on_progress = options.on_progress;
  if (options.check) {
    validate(*options.check);
    o.check_vocab = [check = *options.check](int64_t vocab) { validate(check, vocab); };
  }
  o.path = options.path;
  o.file = options.file;
  o.tokenizer_path = options.tokenizer_path;
  o.context = options.context;
  o.chunk = options.chunk;
  o.kv_f16 = options.kv_f16;
  o.slots = options.parallel;
  o.graph = detail::engine_options(options.load);
  auto impl = std::make_shared<detail::LlmImpl>();
  impl->runtime = runtime.impl();
  wgrt::Runtime& rt = *runtime.impl()->runtime;
  gpu::Device* first = &rt.device();
  if (!options.devices.empty()) {
    // The runtime's own device serves the first part when it was made on
    // that adapter (the CLI makes it so); a device is made for every other.
    const bool runtime_first = rt.device_options().adapter == options.devices[0];
    open_split_devices(options, rt.device_options(), runtime_first, impl->devices);
    if (!runtime_first) first = impl->devices[0].get();
    for (size_t i = runtime_first ? 0 : 1; i < impl->devices.size(); ++i) o.more_devices.push_back(impl->devices[i].get());
  }
  impl->model = llm::LlmModel::load(*first, o);
  return Llm(std::move(impl));
}

std::vector<int32_t> Llm::tokenize(std::string_view text, bool add_special, bool parse_special) const {
  return impl_->model->tokenizer().encode(text, add_special, parse_special);
}

std::string Llm::detokenize(std::span<const int32_t> tokens, bool skip_special) const {
  return impl_->model->tokenizer().decode(tokens, skip_special);
}

size_t Llm::vocab_size() const { return impl_->model->tokenizer().vocab_size(); }
int64_t Llm::model_vocab() const { return impl_->model->model_vocab(); }
int32_t Llm::eos() const { return impl_->model->tokenizer().eos().value_or(-1); }

std::vector<float> Llm::forward(std::span<const int32_t> tokens, const RunOptions& options) {
  ExecuteOptions eo;
  eo.time_dispatches = options.time_dispatches;
  const std::span<const float> logits = impl_->model->forward(tokens, eo);
  return {logits.begin(), logits.end()};
}

std::vector<DispatchTime> Llm::last_dispatch_times() const {
  return detail::dispatch_times(impl_->model->graph().last_timings());
}

HostTimes Llm::last_host_times() const {
  const wgrt::HostTimes& h = impl_->model->graph().last_host_times();
  return {h.prepare_ms, h.encode_ms, h.wait_ms, h.readback_ms, h.dispatches, h.submit_ms};
}

size_t Llm::dispatch_count() const { return impl_->model->dispatch_count(); }

std::string Llm::apply_chat_template(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const {
  return apply_chat_template(messages, add_generation_prompt, {});
}

namespace {

llm::jinja::Value jinja_of(const nlohmann::json& j) {
  using llm::jinja::Value;
  switch (j.type()) {
    case nlohmann::json::value_t::null: return Value::none();
    case nlohmann::json::value_t::boolean: return Value::boolean(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return Value::integer(j.get<int64_t>());
    case nlohmann::json::value_t::number_float: return Value::number(j.get<double>());
    case nlohmann::json::value_t::string: return Value::string(j.get<std::string>());
    case nlohmann::json::value_t::array: {
      llm::jinja::Array a;
      for (const auto& v : j) a.push_back(jinja_of(v));
      return Value::list(std::move(a));
    }
    case nlohmann::json::value_t::object: {
      llm::jinja::Object o;
      for (const auto& [k, v] : j.items()) o.emplace_back(k, jinja_of(v));
      return Value::dict(std::move(o));
    }
    default: break;
  }
  return Value::none();
}

// A conversation as message dicts for the template: tool calls with their
// arguments as dicts (templates print them with tojson), and each tool
// result with the name of the function whose call it answers.
llm::jinja::Value message_values(const std::vector<ChatMessage>& messages) {
  using llm::jinja::Value;
  std::map<std::string, std::string> names;  // call id -> function
  llm::jinja::Array list;
  for (size_t i = 0; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    llm::jinja::Object d = {{"role", Value::string(m.role)},
                            {"content", m.content.empty() && !m.tool_calls.empty() ? Value::none()
                                                                                    : Value::string(m.content)}};
    if (!m.tool_calls.empty()) {
      llm::jinja::Array calls;
      for (const ToolCall& c : m.tool_calls) {
        const auto args = nlohmann::json::parse(c.arguments, nullptr, false);
        if (!args.is_object()) {
          throw Error(ErrorCode::InvalidArgument, "messages[" + std::to_string(i) + "]: the arguments of tool call '" +
                                                      c.id + "' are not a JSON object");
        }
        names[c.id] = c.name;
        calls.push_back(Value::dict({{"id", Value::string(c.id)},
                                     {"type", Value::string("function")},
                                     {"function", Value::dict({{"name", Value::string(c.name)},
                                                               {"arguments", jinja_of(args)}})}}));
      }
      d.emplace_back("tool_calls", Value::list(std::move(calls)));
    }
    if (!m.tool_call_id.empty()) {
      d.emplace_back("tool_call_id", Value::string(m.tool_call_id));
      if (auto it = names.find(m.tool_call_id); it != names.end()) d.emplace_back("name", Value::string(it->second));
    }
    list.push_back(Value::dict(std::move(d)));
  }
  return Value::list(std::move(list));
}

}  // namespace

std::string Llm::apply_chat_template(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                                     std::string_view tools_json) const {
  const llm::ChatTemplate& chat = impl_->model->chat_template();
  const bool tooled = !tools_json.empty() || std::any_of(messages.begin(), messages.end(), [](const ChatMessage& m) {
    return !m.tool_calls.empty() || !m.tool_call_id.empty() || m.role == "tool";
  });
  if (!tooled) {
    std::vector<llm::ChatMessage> m;
    for (const ChatMessage& x : messages) m.push_back({x.role, x.content});
    return chat.apply(m, add_generation_prompt);
  }
  llm::jinja::Value tools;  // undefined: the template shows none
  if (!tools_json.empty()) {
    parse_tools(tools_json);  // refuses what is not a list of functions, naming it
    tools = jinja_of(nlohmann::json::parse(tools_json));
  }
  return chat.apply_values(message_values(messages), tools, add_generation_prompt);
}

ToolCallFormat Llm::tool_call_format() const {
  return api::tool_call_format_of(impl_->model->chat_template().source());
}

namespace {

void copy_stats(const llm::GenerateStats& s, GenerateResult& r) {
  r.prompt_tokens = s.prompt_tokens;
  r.cached_tokens = s.cached_tokens;
  r.generated_tokens = s.generated_tokens;
  r.wait_seconds = s.wait_seconds;
  r.prompt_seconds = s.prompt_seconds;
  r.generate_seconds = s.generate_seconds;
  r.stopped_at_stop_string = s.stopped_at_stop_string;
  r.cancelled = s.cancelled;
  r.prompt_tokens_per_second = s.prompt_tokens_per_second();
  r.generate_tokens_per_second = s.generate_tokens_per_second();
  r.stopped_at_eos = s.stopped_at_eos;
  r.context_full = s.context_full;
}

}  // namespace

namespace detail {
llm::GenerateOptions engine_generate_options(const GenerateOptions& options) { return api::engine_options(options); }
void copy_generate_stats(const llm::GenerateStats& s, GenerateResult& r) { api::copy_stats(s, r); }

std::vector<DispatchTime> dispatch_times(const std::vector<gpu::DispatchTiming>& timings) {
  std::vector<DispatchTime> times;
  for (const gpu::DispatchTiming& t : timings) times.push_back({t.label, t.gpu_ns * 1e-6});
  return times;
}
}  // namespace detail

GenerateResult Llm::generate(std::span<const int32_t> prompt, const GenerateOptions& options,
                             const TextCallback& on_text) {
  validate(options);
  const llm::GenerateOptions g = engine_options(options);
  GenerateResult r;
  const llm::GenerateStats s = llm::generate(*impl_->model, prompt, g, [&](llm::TokenId id, std::string_view text) {
    if (id >= 0) r.tokens.push_back(id);
    r.text += text;
    return on_text ? on_text(text) : true;
  });
  copy_stats(s, r);
  return r;
}

GenerateResult Llm::generate(std::string_view prompt, const GenerateOptions& options, const TextCallback& on_text) {
  const std::vector<int32_t> tokens = tokenize(prompt);
  return generate(std::span<const int32_t>(tokens), options, on_text);
}

void Llm::reset() { impl_->model->reset(true); }
void Llm::lose_device_for_test() { impl_->model->device().lose_for_test(); }
void Llm::fail_next_allocation_for_test() { impl_->model->device().fail_nth_allocation_for_test(1); }

int64_t Llm::reuse_cached_prefix(std::span<const int32_t> prompt) {
  const int64_t n = impl_->model->cached_prefix(prompt);
  impl_->model->rewind(n);
  return n;
}
const std::string& Llm::path() const { return impl_->model->path(); }
std::string Llm::description() const {
  std::string out = impl_->model->config().summary();
  const std::vector<llm::LayerRange> split = impl_->model->layer_split();
  if (split.size() < 2) return out;
  out += "; layers split across " + std::to_string(split.size()) + " devices:";
  for (const llm::LayerRange& r : split) {
    out += ' ';
    out += std::to_string(r.first);
    out += '-';
    out += std::to_string(r.end - 1);
  }
  return out;
}
bool Llm::can_sample_on_gpu() const { return true; }  // every LLM graph ends in the sampler
int64_t Llm::context() const { return impl_->model->context(); }
std::vector<AdapterInfo> Llm::adapters() const {
  std::vector<AdapterInfo> out;
  for (const gpu::Device* d : impl_->model->devices()) {
    out.push_back(detail::adapter_info(d->adapter_info(), d->implementation_version()));
  }
  return out;
}
int64_t Llm::chunk() const { return impl_->model->chunk(); }
uint64_t Llm::weight_bytes() const { return impl_->model->weight_bytes(); }
int64_t Llm::cached_tokens() const { return impl_->model->cached(); }
MemoryStats Llm::memory_stats() const { return impl_->model->memory_stats(); }

struct Generation::State {
  std::shared_ptr<detail::LlmImpl> llm;  // kept alive while generating
  llm::Generation generation;
};

Generation::Generation(const Llm& llm, std::span<const int32_t> prompt, const GenerateOptions& options)
    : state_(new State{llm.impl_, llm::Generation(*llm.impl_->model, prompt, engine_options(options))}) {}
Generation::~Generation() = default;
Generation::Generation(Generation&&) noexcept = default;
Generation& Generation::operator=(Generation&&) noexcept = default;

std::optional<GenerationStep> Generation::next() {
  std::optional<llm::Generation::Step> step = state_->generation.next();
  if (!step) return std::nullopt;
  GenerationStep out{step->token, std::move(step->text), std::nullopt};
  if (step->logprobs) out.logprobs = TokenLogprobs{step->logprobs->logprob, std::move(step->logprobs->top)};
  return out;
}

void Generation::stop() { state_->generation.stop(); }

GenerateResult Generation::stats() const {
  GenerateResult r;
  copy_stats(state_->generation.stats(), r);
  return r;
}

}  // namespace wgrt::api
