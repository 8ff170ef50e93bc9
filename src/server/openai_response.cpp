#include "server/openai_response.h"

namespace wgrt::server {
namespace {

bool is_chat(const ResponseMeta& meta) { return meta.endpoint == Endpoint::ChatCompletions; }

json finish_reason(std::optional<FinishReason> reason) {
  if (!reason) return nullptr;
  switch (*reason) {
    case FinishReason::Stop: return "stop";
    case FinishReason::Length: return "length";
    case FinishReason::Cancelled:
    case FinishReason::Error: break;
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

}  // namespace

json completion_body(const ResponseMeta& meta, const std::string& text, const JobResult& result) {
  json choice = {{"index", 0}, {"logprobs", nullptr}, {"finish_reason", finish_reason(result.reason)}};
  if (is_chat(meta)) {
    choice["message"] = {{"role", "assistant"}, {"content", text}};
  } else {
    choice["text"] = text;
  }
  json body = envelope(meta, is_chat(meta) ? "chat.completion" : "text_completion");
  body["choices"] = json::array({std::move(choice)});
  body["usage"] = usage(result);
  return body;
}

json completion_chunk(const ResponseMeta& meta, std::string_view text, std::optional<FinishReason> finish,
                      bool first) {
  json choice = {{"index", 0}, {"logprobs", nullptr}, {"finish_reason", finish_reason(finish)}};
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
