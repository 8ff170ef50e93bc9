// `wgrt.LLM`: a GGUF Llama-family model with its tokenizer, a streaming
// generate() iterator, and forward() for raw logits. Uses only wgrt's public
// API (wgrt::api::Llm and Generation).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <optional>

#include "bindings.h"
#include "cli/environment.h"
#include "wgrt/error.h"
#include "wgrt/json_schema.h"
#include "wgrt/llm.h"
#include "wgrt/tool_calls.h"

namespace wgrt::py {
namespace {

struct PyLLM {
  api::Llm llm;
};

// Model output as a Python str. A random or badly trained model can emit
// bytes that never form UTF-8 (the stream decoder passes them through):
// they become U+FFFD instead of a UnicodeDecodeError out of the iterator.
nb::str lossy_str(const std::string& bytes) {
  PyObject* s = PyUnicode_DecodeUTF8(bytes.data(), Py_ssize_t(bytes.size()), "replace");
  if (s == nullptr) throw nb::python_error();
  return nb::steal<nb::str>(s);
}

// One generate() call. Holds the LLM object so the model outlives it.
struct PyGeneration {
  nb::object owner;
  std::optional<api::Generation> gen;
  std::vector<int32_t> tokens;
  size_t cached_tokens = 0;  // of the prompt: found in the KV cache, not run again
  std::vector<api::TokenLogprobs> logprobs;  // one per token, when asked for

  nb::str next() {
    while (std::optional<api::GenerationStep> step = gen->next()) {
      if (step->token >= 0) tokens.push_back(step->token);
      if (step->logprobs) logprobs.push_back(std::move(*step->logprobs));
      if (!step->text.empty()) return lossy_str(step->text);
    }
    throw nb::stop_iteration();
  }
};

// The sampling options both generate paths take from Python.
api::GenerateOptions sampling_options(int32_t max_tokens, float temperature, int32_t top_k, float top_p, float min_p,
                                      float repeat_penalty, uint64_t seed, bool ignore_eos, int32_t in_flight) {
  api::GenerateOptions options;
  options.max_tokens = max_tokens;
  options.temperature = temperature;
  options.top_k = top_k;
  options.top_p = top_p;
  options.min_p = min_p;
  options.repeat_penalty = repeat_penalty;
  options.seed = seed;
  options.ignore_eos = ignore_eos;
  options.in_flight = in_flight;
  return options;
}

void bind_generation(nb::module_& m) {
  nb::class_<PyGeneration>(m, "Generation", "A streaming generation: iterate for text pieces.")
      .def("__iter__", [](nb::handle self) { return self; })
      .def("__next__", &PyGeneration::next)
      .def("close", [](PyGeneration& g) { g.gen->stop(); })
      .def_prop_ro("tokens", [](const PyGeneration& g) { return g.tokens; }, "Token ids generated so far.")
      .def_prop_ro("logprobs", [](const PyGeneration& g) {
        nb::list out;
        for (const api::TokenLogprobs& t : g.logprobs) out.append(nb::make_tuple(t.logprob, t.top));
        return out;
      }, "With logprobs=k: per token so far, (its log-probability, [(id, log-probability)] of the k likeliest).")
      .def_prop_ro("stats", [](const PyGeneration& g) {
        const api::GenerateResult s = g.gen->stats();
        nb::dict d;
        d["prompt_tokens"] = g.cached_tokens + s.prompt_tokens;
        d["cached_tokens"] = g.cached_tokens;
        d["generated_tokens"] = s.generated_tokens;
        d["prompt_seconds"] = s.prompt_seconds;
        d["generate_seconds"] = s.generate_seconds;
        d["wait_seconds"] = s.wait_seconds;
        d["stopped_at_eos"] = s.stopped_at_eos;
        d["context_full"] = s.context_full;
        d["cancelled"] = s.cancelled;
        return d;
      });
}

// LLM._generate: a streaming generation of `prompt` (the part the cache
// already holds skipped).
PyGeneration start_generation(nb::handle self, const std::vector<int32_t>& prompt, int32_t max_tokens,
                              float temperature, int32_t top_k, float top_p, float min_p, float repeat_penalty,
                              uint64_t seed, bool ignore_eos, int32_t in_flight, bool gpu_sampling, bool cache_prompt,
                              float presence_penalty, float frequency_penalty,
                              const std::vector<std::pair<int32_t, float>>& logit_bias, int32_t logprobs,
                              bool json_object, const std::string& json_schema, const std::string& grammar) {
  PyLLM& l = nb::cast<PyLLM&>(self);
  api::GenerateOptions options =
      sampling_options(max_tokens, temperature, top_k, top_p, min_p, repeat_penalty, seed, ignore_eos, in_flight);
  options.presence_penalty = presence_penalty;
  options.frequency_penalty = frequency_penalty;
  options.logit_bias = logit_bias;
  options.logprobs = logprobs;
  options.json_object = json_object;
  if (!json_schema.empty()) options.json_schema = api::parse_json_schema(json_schema);
  if (!grammar.empty()) options.grammar = api::parse_grammar(grammar);
  options.gpu_sampling = gpu_sampling;
  // Each generate() runs as from an empty cache; with cache_prompt the
  // part of the cache the prompt repeats (a chat's earlier turns) is kept.
  if (!cache_prompt) l.llm.reset();
  const int64_t reused = l.llm.reuse_cached_prefix(prompt);
  PyGeneration g{nb::borrow(self), std::nullopt, {}, size_t(reused)};
  g.gen.emplace(l.llm, std::span(prompt).subspan(size_t(reused)), options);
  return g;
}

// LLM._generate_batch: every prompt generated at once, one dict per prompt.
nb::list generate_batch(PyLLM& l, const std::vector<std::vector<int32_t>>& prompts, int32_t max_tokens,
                        float temperature, int32_t top_k, float top_p, float min_p, float repeat_penalty,
                        uint64_t seed, bool ignore_eos, int32_t in_flight) {
  const api::GenerateOptions options =
      sampling_options(max_tokens, temperature, top_k, top_p, min_p, repeat_penalty, seed, ignore_eos, in_flight);
  std::vector<api::GenerateResult> results;
  {
    nb::gil_scoped_release release;  // minutes of GPU work; no Python object is touched
    results = l.llm.generate_batch(prompts, options);
  }
  nb::list out;
  for (const api::GenerateResult& r : results) {
    nb::dict d;
    d["text"] = lossy_str(r.text);
    d["tokens"] = r.tokens;
    d["prompt_tokens"] = r.prompt_tokens;
    d["cached_tokens"] = r.cached_tokens;
    d["generated_tokens"] = r.generated_tokens;
    d["stopped_at_eos"] = r.stopped_at_eos;
    d["context_full"] = r.context_full;
    out.append(d);
  }
  return out;
}

}  // namespace

// A conversation as the model's prompt text. Each message comes as [role,
// content, tool_call_id, then id, name, arguments of each tool call] (the
// Python wrapper flattens OpenAI's dicts); tools_json is OpenAI's `tools`.
std::string apply_chat(const PyLLM& l, const std::vector<std::vector<std::string>>& messages,
                       bool add_generation_prompt, std::optional<std::string> tools_json) {
  std::vector<api::ChatMessage> chat;
  for (size_t i = 0; i < messages.size(); ++i) {
    const std::vector<std::string>& m = messages[i];
    if (m.size() < 3 || (m.size() - 3) % 3 != 0) {
      throw Error(ErrorCode::InvalidArgument, "message " + std::to_string(i) + ": expected role, content, "
                                              "tool_call_id and three strings per tool call, got " +
                                                  std::to_string(m.size()) + " strings");
    }
    api::ChatMessage c{m[0], m[1], {}, m[2]};
    for (size_t j = 3; j < m.size(); j += 3) c.tool_calls.push_back({m[j], m[j + 1], m[j + 2]});
    chat.push_back(std::move(c));
  }
  return tools_json ? l.llm.apply_chat_template(chat, add_generation_prompt, *tools_json)
                    : l.llm.apply_chat_template(chat, add_generation_prompt);
}

void bind_llm(nb::module_& m) {
  bind_generation(m);
  nb::class_<PyLLM>(m, "LLM", "A Llama-family model: a GGUF file, or ExecuTorch's Llama export with a GGUF tokenizer.")
      .def_static("_load", [](const std::string& path, int64_t context, int64_t chunk, bool kv_f16, int64_t parallel,
                              const std::string& tokenizer, const std::vector<int>& devices) {
        api::LlmOptions options;
        options.path = path;
        options.tokenizer_path = tokenizer;
        options.context = context;
        options.chunk = chunk;
        options.kv_f16 = kv_f16;
        options.parallel = parallel;
        options.devices = devices;
        options.load = api::load_options_from_environment();
        return PyLLM{api::Llm::load(default_runtime(), options)};
      }, nb::arg("path"), nb::arg("context") = 2048, nb::arg("chunk") = 256, nb::arg("kv_f16") = false,
         nb::arg("parallel") = 1, nb::arg("tokenizer") = "", nb::arg("devices") = std::vector<int>{})
      .def_prop_ro("parallel", [](const PyLLM& l) { return l.llm.parallel(); })
      .def_prop_ro("path", [](const PyLLM& l) { return l.llm.path(); })
      .def_prop_ro("summary", [](const PyLLM& l) { return l.llm.description(); })
      .def_prop_ro("context", [](const PyLLM& l) { return l.llm.context(); })
      .def_prop_ro("cached", [](const PyLLM& l) { return l.llm.cached_tokens(); }, "Tokens in the KV cache.")
      .def_prop_ro("vocab_size", [](const PyLLM& l) { return l.llm.vocab_size(); })
      .def_prop_ro("eos", [](const PyLLM& l) -> std::optional<int32_t> {
        const int32_t eos = l.llm.eos();
        return eos >= 0 ? std::optional<int32_t>(eos) : std::nullopt;
      })
      .def("encode", [](const PyLLM& l, const std::string& text, bool add_special, bool parse_special) {
        return l.llm.tokenize(text, add_special, parse_special);
      }, nb::arg("text"), nb::arg("add_special") = true, nb::arg("parse_special") = true)
      .def("decode", [](const PyLLM& l, const std::vector<int32_t>& ids, bool skip_special) {
        return lossy_str(l.llm.detokenize(ids, skip_special));
      }, nb::arg("ids"), nb::arg("skip_special") = false)
      .def("apply_chat_template", [](const PyLLM& l, const std::string& user, std::optional<std::string> system) {
        std::vector<api::ChatMessage> messages;
        if (system) messages.push_back({"system", *system});
        messages.push_back({"user", user});
        return l.llm.apply_chat_template(messages, /*add_generation_prompt=*/true);
      }, nb::arg("user"), nb::arg("system") = nb::none())
      .def("_apply_chat", &apply_chat,
           nb::arg("messages"), nb::arg("add_generation_prompt"), nb::arg("tools_json") = nb::none())
      .def_prop_ro("tool_call_format",
                   [](const PyLLM& l) { return std::string(tool_call_format_name(l.llm.tool_call_format())); })
      .def("_tool_call_constraint", [](const PyLLM& l, const std::string& tools_json, const std::string& only) {
        const api::ToolCallConstraint c =
            api::tool_call_constraint(l.llm.tool_call_format(), api::parse_tools(tools_json), only);
        return std::make_tuple(c.prefix, c.suffix, c.schema_json);
      }, nb::arg("tools_json"), nb::arg("only"))
      .def("_parse_tool_calls", [](const PyLLM& l, const std::string& text) {
        const api::ParsedReply reply = api::parse_tool_calls(l.llm.tool_call_format(), text);
        std::vector<std::vector<std::string>> calls;
        for (const ToolCall& c : reply.tool_calls) calls.push_back({c.id, c.name, c.arguments});
        return std::make_pair(reply.content, calls);
      }, nb::arg("text"))
      .def("reset", [](PyLLM& l) { l.llm.reset(); }, "Empties the KV cache.")
      .def("forward", [](PyLLM& l, const std::vector<int32_t>& ids) {
        const std::vector<float> logits = l.llm.forward(ids);
        std::vector<uint8_t> bytes(logits.size() * 4);
        std::memcpy(bytes.data(), logits.data(), bytes.size());
        return numpy_from_tensor(api::Tensor(DType::F32, {int64_t(logits.size())}, std::move(bytes)));
      }, nb::arg("token_ids"), "Appends tokens to the KV cache; returns the last token's logits.")
      .def("_generate", &start_generation)
      .def("_generate_batch", &generate_batch)
      .def("memory_stats", [](const PyLLM& l) { return memory_stats_dict(l.llm.memory_stats()); });
}

}  // namespace wgrt::py
