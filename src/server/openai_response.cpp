#include "server/openai_response.h"

namespace wgrt::server {
namespace {

bool is_chat(const ResponseMeta& meta) { return meta.endpoint == Endpoint::ChatCompletions; }

json finish_reason(const ResponseMeta& meta, std::optional<FinishReason> reason) {
  if (!reason) return nullptr;
  switch (*reason) {
    case FinishReason::Stop: return meta.tool_calls ? "tool_calls" : "stop";
    case FinishReason::Length: return "length";
    case FinishReason::Cancelled:
    case FinishReason::Error:
    case FinishReason::Unavailable: break;
  }
  return nullptr;  // never sent to a client: those end with an error or a closed stream
}

json usage(const JobResult& result) {
  return {{"prompt_tokens", result.prompt_tokens},
          {"completion_tokens", result.completion_tokens},
          {"total_tokens", result.prompt_tokens + result.completion_tokens},
          {"prompt_tokens_details", {{"cached_tokens", result.cached_tokens}}}};
}

json envelope(const ResponseMeta& meta, const char* object) {
  return {{"id", meta.id}, {"object", object}, {"created", meta.created}, {"model", meta.model}};
}

json tool_calls_json(const std::vector<ToolCall>& calls, bool indexed) {
  json out = json::array();
  for (size_t i = 0; i < calls.size(); ++i) {
    json c = {{"id", calls[i].id},
              {"type", "function"},
              {"function", {{"name", calls[i].name}, {"arguments", calls[i].arguments}}}};
    if (indexed) c["index"] = i;
    out.push_back(std::move(c));
  }
  return out;
}

json utf8_bytes(const std::string& s) {
  json out = json::array();
  for (unsigned char c : s) out.push_back(int(c));
  return out;
}

// OpenAI's two shapes: chat's list of entries, completions' parallel arrays.
json logprobs_json(const ResponseMeta& meta, const std::vector<TokenLogprob>& logprobs, size_t text_offset) {
  if (!meta.logprobs) return nullptr;
  if (is_chat(meta)) {
    json content = json::array();
    for (const TokenLogprob& t : logprobs) {
      json top = json::array();
      for (const auto& [token, lp] : t.top) top.push_back({{"token", token}, {"logprob", lp}, {"bytes", utf8_bytes(token)}});
      content.push_back({{"token", t.token}, {"logprob", t.logprob}, {"bytes", utf8_bytes(t.token)}, {"top_logprobs", top}});
    }
    return {{"content", content}};
  }
  json tokens = json::array(), token_logprobs = json::array(), top_logprobs = json::array(), offsets = json::array();
  for (const TokenLogprob& t : logprobs) {
    tokens.push_back(t.token);
    token_logprobs.push_back(t.logprob);
    json top = json::object();
    for (const auto& [token, lp] : t.top) top[token] = lp;
    top_logprobs.push_back(std::move(top));
    offsets.push_back(text_offset);
    text_offset += t.token.size();
  }
  return {{"tokens", tokens}, {"token_logprobs", token_logprobs}, {"top_logprobs", top_logprobs}, {"text_offset", offsets}};
}

}  // namespace

json completion_body(const ResponseMeta& meta, const std::vector<ChoiceReply>& choices, const JobResult& result) {
  json list = json::array();
  for (size_t i = 0; i < choices.size(); ++i) {
    const ChoiceReply& c = choices[i];
    ResponseMeta m = meta;
    m.tool_calls = !c.tool_calls.empty();
    json choice = {{"index", i}, {"logprobs", logprobs_json(m, c.logprobs, 0)}, {"finish_reason", finish_reason(m, c.reason)}};
    if (is_chat(m)) {
      choice["message"] = {{"role", "assistant"},
                           {"content", c.tool_calls.empty() || !c.text.empty() ? json(c.text) : json(nullptr)}};
      if (!c.tool_calls.empty()) choice["message"]["tool_calls"] = tool_calls_json(c.tool_calls, false);
    } else {
      choice["text"] = c.text;
    }
    list.push_back(std::move(choice));
  }
  json body = envelope(meta, is_chat(meta) ? "chat.completion" : "text_completion");
  body["choices"] = std::move(list);
  body["usage"] = usage(result);
  return body;
}

json completion_chunk(const ResponseMeta& meta, std::string_view text, const std::vector<TokenLogprob>& logprobs,
                      size_t text_offset, std::optional<FinishReason> finish, bool first) {
  json choice = {{"index", meta.index},
                 {"logprobs", logprobs.empty() ? json(nullptr) : logprobs_json(meta, logprobs, text_offset)},
                 {"finish_reason", finish_reason(meta, finish)}};
  if (is_chat(meta)) {
    json delta = json::object();
    if (first) delta["role"] = "assistant";
    if (first || !text.empty()) delta["content"] = text;
    choice["delta"] = std::move(delta);
  } else {
    choice["text"] = text;
  }
  json body = envelope(meta, is_chat(meta) ? "chat.completion.chunk" : "text_completion");
  body["choices"] = json::array({std::move(choice)});
  return body;
}

json tool_calls_chunk(const ResponseMeta& meta, const std::vector<ToolCall>& tool_calls) {
  json choice = {{"index", meta.index}, {"logprobs", nullptr}, {"finish_reason", nullptr},
                 {"delta", {{"tool_calls", tool_calls_json(tool_calls, true)}}}};
  json body = envelope(meta, "chat.completion.chunk");
  body["choices"] = json::array({std::move(choice)});
  return body;
}

json usage_chunk(const ResponseMeta& meta, const JobResult& result) {
  json body = envelope(meta, is_chat(meta) ? "chat.completion.chunk" : "text_completion");
  body["choices"] = json::array();
  body["usage"] = usage(result);
  return body;
}

json error_body(const ApiError& error) {
  return {{"error",
           {{"message", error.what()},
            {"type", error.type},
            {"param", error.param.empty() ? json(nullptr) : json(error.param)},
            {"code", error.code.empty() ? json(nullptr) : json(error.code)}}}};
}

json model_list(const std::string& model, int64_t created) {
  return {{"object", "list"},
          {"data", json::array({{{"id", model}, {"object", "model"}, {"created", created}, {"owned_by", "wgrt"}}})}};
}

std::string to_wire(const json& body) { return body.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace wgrt::server
