#include "server/generation_setup.h"

#include <algorithm>
#include <random>

#include "server/api_error.h"
#include "wgrt/error.h"

namespace wgrt::server {
namespace {

// OpenAI's default for /v1/completions; chat requests default to the rest of the context.
constexpr int64_t kDefaultCompletionTokens = 16;

std::vector<int32_t> prompt_tokens(const api::Llm& model, const GenerationRequest& req) {
  if (req.endpoint == Endpoint::ChatCompletions) {
    std::string text;
    try {
      text = model.apply_chat_template(req.messages, /*add_generation_prompt=*/true);
    } catch (const Error& e) {
      throw ApiError::invalid(std::string("messages: ") + e.what(), "messages");
    }
    return model.tokenize(text, /*add_special=*/false, /*parse_special=*/true);
  }
  if (req.prompt_tokens) {
    const int64_t vocab = model.model_vocab();
    for (int32_t id : *req.prompt_tokens) {
      if (id >= vocab) {
        throw ApiError::invalid("'prompt': token id " + std::to_string(id) + " is outside the vocabulary (" +
                                    std::to_string(vocab) + " tokens)",
                                "prompt");
      }
    }
    return *req.prompt_tokens;
  }
  // As `wgrt generate` encodes a text prompt: BOS where the vocabulary asks
  // for one, special-token text recognised.
  return model.tokenize(req.prompt, /*add_special=*/true, /*parse_special=*/true);
}

}  // namespace

PreparedGeneration prepare_generation(const api::Llm& model, const GenerationRequest& req) {
  PreparedGeneration out;
  out.prompt = prompt_tokens(model, req);
  const int64_t context = model.context();
  const int64_t n_prompt = int64_t(out.prompt.size());
  if (n_prompt == 0) throw ApiError::invalid("the prompt is empty (no tokens)", "prompt");
  if (n_prompt >= context) {
    throw ApiError(400, "invalid_request_error",
                   "the prompt is " + std::to_string(n_prompt) + " tokens; this server's context is " +
                       std::to_string(context) + " tokens, which must also hold at least one generated token",
                   req.endpoint == Endpoint::ChatCompletions ? "messages" : "prompt", "context_length_exceeded");
  }
  int64_t max_tokens = 0;
  if (req.max_tokens) {
    max_tokens = *req.max_tokens;
    if (n_prompt + max_tokens > context) {
      throw ApiError(400, "invalid_request_error",
                     "this server's context is " + std::to_string(context) + " tokens, but " +
                         std::to_string(n_prompt + max_tokens) + " were requested (" + std::to_string(n_prompt) +
                         " in the prompt, " + std::to_string(max_tokens) + " for the completion)",
                     "max_tokens", "context_length_exceeded");
    }
  } else {
    max_tokens = req.endpoint == Endpoint::Completions ? std::min(kDefaultCompletionTokens, context - n_prompt)
                                                        : context - n_prompt;
  }
  out.options = req.sampler;
  // Tokens that may be drawn: the tokenizer's, without the model's padded rows.
  const int64_t vocab = std::min<int64_t>(int64_t(model.vocab_size()), model.model_vocab());
  for (const auto& [id, bias] : out.options.logit_bias) {
    if (id >= vocab) {
      throw ApiError::invalid("'logit_bias': token id " + std::to_string(id) + " is outside the vocabulary (" +
                                  std::to_string(vocab) + " tokens)",
                              "logit_bias");
    }
  }
  out.options.max_tokens = int32_t(max_tokens);
  if (!req.has_seed) out.options.seed = (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
  out.options.stop = req.stop;
  out.options.ignore_eos = req.ignore_eos;
  out.cache_prompt = req.cache_prompt;
  return out;
}

}  // namespace wgrt::server
