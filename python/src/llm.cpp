// `wgrt.LLM`: a GGUF Llama-family model with its tokenizer, a streaming
// generate() iterator over llm::Generation, and forward() for raw logits.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "llm/generate.h"
#include "llm/llm_model.h"

#include <cstring>

namespace wgrt::py {
namespace {

struct PyLLM {
  std::unique_ptr<llm::LlmModel> model;
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
  std::unique_ptr<llm::Generation> gen;
  std::vector<llm::TokenId> tokens;

  nb::str next() {
    while (std::optional<llm::Generation::Step> step = gen->next()) {
      if (step->token >= 0) tokens.push_back(step->token);
      if (!step->text.empty()) return lossy_str(step->text);
    }
    throw nb::stop_iteration();
  }
};

}  // namespace

void bind_llm(nb::module_& m) {
  nb::class_<PyGeneration>(m, "Generation", "A streaming generation: iterate for text pieces.")
      .def("__iter__", [](nb::handle self) { return self; })
      .def("__next__", &PyGeneration::next)
      .def("close", [](PyGeneration& g) { g.gen->stop(); })
      .def_prop_ro("tokens", [](const PyGeneration& g) { return g.tokens; }, "Token ids generated so far.")
      .def_prop_ro("stats", [](const PyGeneration& g) {
        const llm::GenerateStats& s = g.gen->stats();
        nb::dict d;
        d["prompt_tokens"] = s.prompt_tokens;
        d["generated_tokens"] = s.generated_tokens;
        d["prompt_seconds"] = s.prompt_seconds;
        d["generate_seconds"] = s.generate_seconds;
        d["wait_seconds"] = s.wait_seconds;
        d["stopped_at_eos"] = s.stopped_at_eos;
        d["context_full"] = s.context_full;
        d["cancelled"] = s.cancelled;
        return d;
      });

  nb::class_<PyLLM>(m, "LLM", "A Llama-family model loaded from GGUF.")
      .def_static("_load", [](const std::string& path, int64_t context, int64_t chunk, bool kv_f16) {
        llm::LlmLoadOptions options;
        options.path = path;
        options.context = context;
        options.chunk = chunk;
        options.kv_f16 = kv_f16;
        return PyLLM{llm::LlmModel::load(default_runtime().device(), options)};
      }, nb::arg("path"), nb::arg("context") = 2048, nb::arg("chunk") = 256, nb::arg("kv_f16") = false)
      .def_prop_ro("path", [](const PyLLM& l) { return l.model->path(); })
      .def_prop_ro("summary", [](const PyLLM& l) { return l.model->config().summary(); })
      .def_prop_ro("context", [](const PyLLM& l) { return l.model->context(); })
      .def_prop_ro("cached", [](const PyLLM& l) { return l.model->cached(); }, "Tokens in the KV cache.")
      .def_prop_ro("vocab_size", [](const PyLLM& l) { return l.model->tokenizer().vocab_size(); })
      .def_prop_ro("eos", [](const PyLLM& l) { return l.model->tokenizer().eos(); })
      .def("encode", [](const PyLLM& l, const std::string& text, bool add_special, bool parse_special) {
        return l.model->tokenizer().encode(text, add_special, parse_special);
      }, nb::arg("text"), nb::arg("add_special") = true, nb::arg("parse_special") = true)
      .def("decode", [](const PyLLM& l, const std::vector<llm::TokenId>& ids, bool skip_special) {
        return lossy_str(l.model->tokenizer().decode(ids, skip_special));
      }, nb::arg("ids"), nb::arg("skip_special") = false)
      .def("apply_chat_template", [](const PyLLM& l, const std::string& user, std::optional<std::string> system) {
        std::vector<llm::ChatMessage> messages;
        if (system) messages.push_back({"system", *system});
        messages.push_back({"user", user});
        return l.model->chat_template().apply(messages, /*add_generation_prompt=*/true);
      }, nb::arg("user"), nb::arg("system") = nb::none())
      .def("reset", [](PyLLM& l) { l.model->reset(); }, "Empties the KV cache.")
      .def("forward", [](PyLLM& l, const std::vector<llm::TokenId>& ids) {
        std::span<const float> logits = l.model->forward(ids);
        std::vector<uint8_t> bytes(logits.size() * 4);
        std::memcpy(bytes.data(), logits.data(), bytes.size());
        return numpy_from_bytes(DType::F32, {int64_t(logits.size())}, std::move(bytes));
      }, nb::arg("token_ids"), "Appends tokens to the KV cache; returns the last token's logits.")
      .def("_generate", [](nb::handle self, const std::vector<llm::TokenId>& prompt, int32_t max_tokens,
                           float temperature, int32_t top_k, float top_p, float min_p, float repeat_penalty,
                           uint64_t seed, bool ignore_eos, int32_t in_flight, bool gpu_sampling) {
        PyLLM& l = nb::cast<PyLLM&>(self);
        llm::GenerateOptions options;
        options.max_tokens = max_tokens;
        options.sampler.temperature = temperature;
        options.sampler.top_k = top_k;
        options.sampler.top_p = top_p;
        options.sampler.min_p = min_p;
        options.sampler.repeat_penalty = repeat_penalty;
        options.sampler.seed = seed;
        options.ignore_eos = ignore_eos;
        options.in_flight = in_flight;
        options.gpu_sampling = gpu_sampling;
        l.model->reset();  // each generate() starts a new conversation
        return PyGeneration{nb::borrow(self), std::make_unique<llm::Generation>(*l.model, prompt, options), {}};
      })
      .def("memory_stats", [](const PyLLM& l) { return memory_stats_dict(l.model->memory_stats()); });
}

}  // namespace wgrt::py
