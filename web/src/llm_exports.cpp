// Language models in the page: load a GGUF the page holds (page_file.h),
// apply its chat template, and generate token by token (wgrt.mjs streams
// each step to the page as it comes).
#include <algorithm>
#include <nlohmann/json.hpp>
#include <initializer_list>
#include <optional>
#include <stdexcept>

#include "exports.h"
#include "page_file.h"
#include "runtime_exports.h"
#include "wgrt/llm.h"

namespace wgrt::web {
namespace {

HandleTable<api::Llm> g_models;
HandleTable<api::Generation> g_generations;

// Reports loading progress to Module.onProgress(done, total, stage), if set.
void report_progress(size_t done, size_t total, const char* stage) {
  EM_ASM({ if (Module.onProgress) Module.onProgress($0, $1, UTF8ToString($2)); }, double(done), double(total), stage);
}

template <class T>
void take(const nlohmann::json& options, const char* key, T& field) {
  if (!options.contains(key)) return;
  try {
    field = options.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(std::string("option '") + key + "' has the wrong type: " + options.at(key).dump());
  }
}

// A named choice: anything but one of `names` is refused, naming the option.
template <class T>
void take_choice(const nlohmann::json& options, const char* key,
                 std::initializer_list<std::pair<const char*, T>> names, T& field) {
  if (!options.contains(key)) return;
  const nlohmann::json& v = options.at(key);
  std::string accepted;
  for (const auto& [name, value] : names) {
    if (v.is_string() && v.get<std::string>() == name) {
      field = value;
      return;
    }
    accepted += accepted.empty() ? name : std::string(", ") + name;
  }
  throw std::invalid_argument(std::string("option '") + key + "': expected one of " + accepted + ", got " + v.dump());
}

nlohmann::json parse_object(const char* text, const char* what) {
  nlohmann::json j = nlohmann::json::parse(text ? text : "{}", nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) throw std::invalid_argument(std::string(what) + " must be a JSON object");
  return j;
}

api::GenerateOptions generate_options(const char* json) {
  const nlohmann::json o = parse_object(json, "generation options");
  static const char* const known[] = {"max_tokens", "temperature", "top_k", "top_p", "min_p", "repeat_penalty",
                                      "seed", "ignore_eos", "stop", "gpu_sampling", "in_flight"};
  for (const auto& [key, value] : o.items()) {
    if (std::find(std::begin(known), std::end(known), key) == std::end(known)) {
      throw std::invalid_argument("unknown generation option '" + key + "'");
    }
  }
  api::GenerateOptions g;
  take(o, "max_tokens", g.max_tokens);
  take(o, "temperature", g.temperature);
  take(o, "top_k", g.top_k);
  take(o, "top_p", g.top_p);
  take(o, "min_p", g.min_p);
  take(o, "repeat_penalty", g.repeat_penalty);
  take(o, "seed", g.seed);
  take(o, "ignore_eos", g.ignore_eos);
  take(o, "stop", g.stop);
  take(o, "gpu_sampling", g.gpu_sampling);
  take(o, "in_flight", g.in_flight);
  return g;
}

}  // namespace
}  // namespace wgrt::web

using namespace wgrt;

extern "C" {

// Loads the GGUF the page holds as source `source` (wgrt.mjs's table: a
// Blob of `size` bytes, `name` for messages), reading it in ranges as
// loading needs them. Options (JSON): {"context": tokens, "kv_f16": bool}.
// Returns a model handle, or 0. Async.
EMSCRIPTEN_KEEPALIVE int32_t wgrt_web_llm_load(int32_t source, double size, const char* name,
                                               const char* options_json) {
  return web::guarded(
      [&] {
        const nlohmann::json o = web::parse_object(options_json, "model options");
        api::LlmOptions options;
        options.file = web::page_file(source, uint64_t(size), name);
        web::take(o, "context", options.context);
        web::take(o, "kv_f16", options.kv_f16);
        // Kernel choices (wgrt/tuning.h), for comparing variants in a page.
        // The GEMV layout's default (auto) is planar on GPUs and the block
        // layout on SwiftShader, as natively.
        web::take_choice(o, "gemv_layout",
                         {{"auto", GemvLayout::Auto}, {"planar", GemvLayout::Planar}, {"blocks", GemvLayout::Blocks}},
                         options.load.tuning.gemv_layout);
        web::take_choice(o, "gemv_activation", {{"auto", GemvActivation::Auto}, {"f32", GemvActivation::F32}},
                         options.load.tuning.gemv_activation);
        web::take(o, "gemv_lanes", options.load.tuning.gemv_lanes);
        web::take(o, "gemv_blocks_per_lane", options.load.tuning.gemv_blocks_per_lane);
        options.on_progress = web::report_progress;
        return web::g_models.add(api::Llm::load(web::runtime(), options));
      },
      int32_t{0});
}

EMSCRIPTEN_KEEPALIVE int wgrt_web_llm_free(int32_t model) { return web::g_models.remove(model) ? 1 : 0; }

// {"description", "context", "vocab"} of a model, or null.
EMSCRIPTEN_KEEPALIVE const char* wgrt_web_llm_info(int32_t model) {
  return web::guarded(
      [&] {
        const api::Llm& m = web::g_models.get(model, "model");
        const nlohmann::json info = {{"description", m.description()},
                                     {"context", m.context()},
                                     {"vocab", m.vocab_size()},
                                     {"weight_bytes", m.weight_bytes()}};
        return web::returned(info.dump());
      },
      static_cast<const char*>(nullptr));
}

// The prompt text for a chat ([{"role", "content"}...]) under the model's own
// template, ending where the assistant's reply begins; or null.
EMSCRIPTEN_KEEPALIVE const char* wgrt_web_llm_chat_prompt(int32_t model, const char* messages_json) {
  return web::guarded(
      [&] {
        const api::Llm& m = web::g_models.get(model, "model");
        const nlohmann::json j = nlohmann::json::parse(messages_json, nullptr, false);
        if (j.is_discarded() || !j.is_array()) throw std::invalid_argument("messages must be a JSON array");
        std::vector<api::ChatMessage> messages;
        for (size_t i = 0; i < j.size(); ++i) {
          const nlohmann::json& msg = j[i];
          if (!msg.is_object() || !msg.contains("role") || !msg["role"].is_string() || !msg.contains("content") ||
              !msg["content"].is_string()) {
            throw std::invalid_argument("message " + std::to_string(i) + " needs string 'role' and 'content'");
          }
          api::ChatMessage message;
          message.role = msg["role"].get<std::string>();
          message.content = msg["content"].get<std::string>();
          messages.push_back(std::move(message));
        }
        return web::returned(m.apply_chat_template(messages, /*add_generation_prompt=*/true));
      },
      static_cast<const char*>(nullptr));
}

// Starts generating after `prompt` (tokenized with the model's special
// tokens, as `wgrt generate` does). Returns a generation handle, or 0. Async
// (the prompt runs here).
EMSCRIPTEN_KEEPALIVE int32_t wgrt_web_generation_start(int32_t model, const char* prompt, const char* options_json) {
  return web::guarded(
      [&] {
        const api::Llm& m = web::g_models.get(model, "model");
        const api::GenerateOptions options = web::generate_options(options_json);
        api::validate(options, int64_t(m.vocab_size()));
        const std::vector<int32_t> tokens = m.tokenize(prompt);
        return web::g_generations.add(api::Generation(m, tokens, options));
      },
      int32_t{0});
}

// The next step as {"token": id, "text": piece}, {"done": true, "stats": {...}}
// after the last, or null on an error. Async.
EMSCRIPTEN_KEEPALIVE const char* wgrt_web_generation_next(int32_t generation) {
  return web::guarded(
      [&] {
        api::Generation& g = web::g_generations.get(generation, "generation");
        const std::optional<api::GenerationStep> step = g.next();
        if (step) return web::returned(nlohmann::json({{"token", step->token}, {"text", step->text}}).dump());
        const api::GenerateResult r = g.stats();
        const nlohmann::json stats = {{"prompt_tokens", r.prompt_tokens},
                                      {"generated_tokens", r.generated_tokens},
                                      {"prompt_tokens_per_second", r.prompt_tokens_per_second},
                                      {"generate_tokens_per_second", r.generate_tokens_per_second},
                                      {"stopped_at_eos", r.stopped_at_eos},
                                      {"cancelled", r.cancelled},
                                      {"context_full", r.context_full}};
        return web::returned(nlohmann::json({{"done", true}, {"stats", stats}}).dump());
      },
      static_cast<const char*>(nullptr));
}

// Stops a generation early (its next step reports done). Async (steps in
// flight on the GPU are drained).
EMSCRIPTEN_KEEPALIVE int wgrt_web_generation_stop(int32_t generation) {
  return web::guarded(
      [&] {
        web::g_generations.get(generation, "generation").stop();
        return 1;
      },
      0);
}

// Runs `tokens` (a JSON array of ids) through the model as one forward pass
// with each dispatch timed, and returns {"wall_ms", "dispatches": [{"label",
// "ms"}...], "host": {...}}: where a page's time goes. It appends to the
// KV cache, as a prompt would; or null. Async.
EMSCRIPTEN_KEEPALIVE const char* wgrt_web_llm_profile(int32_t model, const char* tokens_json) {
  return web::guarded(
      [&] {
        api::Llm& m = web::g_models.get(model, "model");
        const nlohmann::json j = nlohmann::json::parse(tokens_json, nullptr, false);
        if (j.is_discarded() || !j.is_array() || j.empty()) throw std::invalid_argument("tokens must be a JSON array of ids");
        const std::vector<int32_t> tokens = j.get<std::vector<int32_t>>();
        api::RunOptions options;
        options.time_dispatches = true;
        const double t0 = emscripten_get_now();
        m.forward(tokens, options);
        const double wall = emscripten_get_now() - t0;
        nlohmann::json dispatches = nlohmann::json::array();
        for (const api::DispatchTime& d : m.last_dispatch_times()) dispatches.push_back({{"label", d.label}, {"ms", d.ms}});
        const api::HostTimes h = m.last_host_times();
        const nlohmann::json host = {{"prepare_ms", h.prepare_ms}, {"encode_ms", h.encode_ms},
                                     {"wait_ms", h.wait_ms}, {"readback_ms", h.readback_ms}};
        return web::returned(nlohmann::json({{"wall_ms", wall}, {"dispatches", dispatches}, {"host", host}}).dump());
      },
      static_cast<const char*>(nullptr));
}

EMSCRIPTEN_KEEPALIVE int wgrt_web_generation_free(int32_t generation) {
  return web::g_generations.remove(generation) ? 1 : 0;
}

}  // extern "C"
