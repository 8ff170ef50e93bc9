#include "server/generation_setup.h"

#include <algorithm>
#include <random>

#include "server/api_error.h"
#include "wgrt/error.h"

namespace wgrt::server {
namespace {

// OpenAI's default for /v1/completions; chat requests default to the rest of the context.
constexpr int64_t kDefaultCompletionTokens = 16;

// tool_choice required or a named function: the reply must be a call, so
// the prompt ends with the format's opening marker and the generation follows
// the calls' schema (wgrt/tool_calls.h).
void require_tool_call(const api::Llm& model, const GenerationRequest& req, PreparedGeneration& out) {
  if (req.sampler.json_object || req.sampler.json_schema || req.sampler.grammar) {
    throw ApiError::invalid("'response_format' and a required tool call cannot both shape the reply", "tool_choice");
  }
  try {
    const api::ToolCallConstraint c = api::tool_call_constraint(
        model.tool_call_format(), api::parse_tools(req.tools_json),
        req.tool_choice == ToolChoice::Named ? std::string_view(req.tool_name) : std::string_view());
    out.reply_prefix = c.prefix;
    out.reply_suffix = c.suffix;
    out.options.json_schema = c.schema;
  } catch (const Error& e) {
    throw ApiError::invalid(std::string("tool_choice: ") + e.what(), "tool_choice");
  }
}

std::vector<int32_t> prompt_tokens(const api::Llm& model, const GenerationRequest& req, const PreparedGeneration& out) {
  if (req.endpoint == Endpoint::ChatCompletions) {
    std::string text;
    try {
      // Tools are shown where the template can show them (with tool_choice
      // none a template without them just answers).
      const bool shown = model.tool_call_format() != ToolCallFormat::None;
      text = model.apply_chat_template(req.messages, /*add_generation_prompt=*/true,
                                       shown ? std::string_view(req.tools_json) : std::string_view());
    } catch (const Error& e) {
      throw ApiError::invalid(std::string("messages: ") + e.what(), "messages");
    }
    text += out.reply_prefix;
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

ReplyReader::Reply ReplyReader::read(const std::string& generated, const JobResult& result) const {
  if (!reads_calls()) return {generated, {}};
  const bool whole = result.reason == FinishReason::Stop;
  api::ParsedReply parsed = api::parse_tool_calls(format, prefix + generated + (whole ? suffix : ""));
  if (parsed.tool_calls.empty()) return {generated, {}};
  return {std::move(parsed.content), std::move(parsed.tool_calls)};
}

PreparedGeneration prepare_generation(const api::Llm& model, const GenerationRequest& req) {
  PreparedGeneration out;
  out.options = req.sampler;
  if (req.tool_choice == ToolChoice::Required || req.tool_choice == ToolChoice::Named) require_tool_call(model, req, out);
  if (req.tool_choice != ToolChoice::None) {
    out.tool_format = model.tool_call_format();
    if (out.tool_format == ToolCallFormat::None) {
      throw ApiError::invalid("this model's chat template shows no tools (wgrt reads the Hermes <tool_call>, Llama 3 "
                              "JSON and Mistral [TOOL_CALLS] formats), so it cannot call them; send tool_choice "
                              "\"none\" or no tools",
                              "tools");
    }
  }
  out.prompt = prompt_tokens(model, req, out);
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
