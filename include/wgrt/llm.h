// wgrt's public C++ API: Llama-family LLMs (conventions: wgrt/runtime.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wgrt/memory_stats.h"
#include "wgrt/runtime.h"

namespace wgrt::api {

struct LlmOptions {
  std::string path;            // .gguf, or a .pte from ExecuTorch's Llama export
  std::string tokenizer_path;  // for a .pte: a GGUF file whose tokenizer the model uses
  int64_t context = 2048;      // KV cache length; capped at the model's trained context
  int64_t chunk = 256;         // most prompt tokens per forward pass
  bool kv_f16 = false;         // KV cache in f16 (GGUF models): half its memory, rows rounded to f16
  LoadOptions load;
};

struct GenerateOptions {
  int32_t max_tokens = 128;
  float temperature = 0.8f;  // 0: greedy
  int32_t top_k = 40;        // 0: off
  float top_p = 0.95f;       // 1: off
  float min_p = 0.05f;       // 0: off
  float repeat_penalty = 1.0f;
  uint64_t seed = 0;
  bool ignore_eos = false;
  // Tokens are sampled on the GPU and fed back there, with `in_flight`
  // decode steps queued ahead of the host (1: wait for each token); false
  // reads the logits back and samples on the CPU. The same seed gives the
  // same tokens either way.
  bool gpu_sampling = true;
  int32_t in_flight = 4;
};

struct GenerateResult {
  std::vector<int32_t> tokens;  // generated
  std::string text;             // their text
  size_t prompt_tokens = 0;
  double prompt_tokens_per_second = 0;
  double generate_tokens_per_second = 0;
  bool stopped_at_eos = false;
  bool context_full = false;
};

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

// Called with each piece of text as it completes (a token may complete no
// text, when it ends inside a UTF-8 sequence). Return false to stop.
using TextCallback = std::function<bool(std::string_view)>;

// A model, its tokenizer and its KV cache on the GPU. Generation continues
// from what the cache holds; reset() empties it. After a generation the cache
// holds its prompt and every generated token but the last (steps that ran
// ahead are dropped): to continue, start the next prompt with that token.
class Llm {
 public:
  // Errors: NotFound, InvalidProgram, NotSupported (an architecture or weight
  // format wgrt lacks), OutOfMemory.
  static Llm load(const Runtime& runtime, const LlmOptions& options);

  // `add_special`: the BOS/EOS the model asks for; special-token text such as
  // "<|im_start|>" is always parsed as the special token.
  std::vector<int32_t> tokenize(std::string_view text, bool add_special = true) const;
  std::string detokenize(std::span<const int32_t> tokens) const;
  // The prompt text of a conversation, in the model's chat format.
  std::string apply_chat_template(const std::vector<ChatMessage>& messages, bool add_generation_prompt = true) const;

  // Appends the prompt to the cache and generates. Error(InvalidArgument) when
  // the prompt does not fit the context (nothing is run then).
  GenerateResult generate(std::span<const int32_t> prompt, const GenerateOptions& options = {},
                          const TextCallback& on_text = {});
  GenerateResult generate(std::string_view prompt, const GenerateOptions& options = {},
                          const TextCallback& on_text = {});

  void reset();
  int64_t context() const;
  int64_t cached_tokens() const;
  MemoryStats memory_stats() const;

 private:
  explicit Llm(std::shared_ptr<detail::LlmImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<detail::LlmImpl> impl_;
};

}  // namespace wgrt::api
