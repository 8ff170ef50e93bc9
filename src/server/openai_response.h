// The JSON bodies the OpenAI API answers with: whole completions, the chunks
// of a streamed one (sent as server-sent events), the model list and errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/api_error.h"
#include "server/generation_queue.h"
#include "server/openai_request.h"

namespace wgrt::server {

using nlohmann::json;

// What every body or chunk of one response repeats.
struct ResponseMeta {
  Endpoint endpoint = Endpoint::Completions;
  std::string id;     // "cmpl-N" or "chatcmpl-N"
  std::string model;
  int64_t created = 0;  // Unix seconds
  bool logprobs = false;  // the request asked for them
  bool tool_calls = false;  // the reply was read as tool calls: the finish reason says "tool_calls"
  size_t index = 0;       // the choice a chunk belongs to (a request may ask for `n` of them)
};

// One choice of a whole completion.
struct ChoiceReply {
  std::string text;
  std::vector<TokenLogprob> logprobs;
  FinishReason reason = FinishReason::Stop;
  std::vector<ToolCall> tool_calls;
};

// `logprobs`: the tokens' log-probabilities when meta.logprobs (chat:
// `logprobs.content`; completions: tokens, token_logprobs, top_logprobs,
// text_offset).
// `tool_calls`: the calls read from a chat reply (`text` is then what is
// left of it; no text becomes a null content).
// `usage`: the request's (prompt tokens once, the choices' completion tokens summed).
json completion_body(const ResponseMeta& meta, const std::vector<ChoiceReply>& choices, const JobResult& usage);
// A chunk carrying `text` and the log-probabilities of its tokens (a
// completion's text_offset counts from `text_offset`); the last one carries
// the finish reason; the first chat chunk announces the assistant's role.
json completion_chunk(const ResponseMeta& meta, std::string_view text, const std::vector<TokenLogprob>& logprobs,
                      size_t text_offset, std::optional<FinishReason> finish, bool first);
// A chat chunk carrying the calls read from the (held back) reply.
json tool_calls_chunk(const ResponseMeta& meta, const std::vector<ToolCall>& tool_calls);
// The extra last chunk of stream_options.include_usage: no choices, the usage.
json usage_chunk(const ResponseMeta& meta, const JobResult& result);
json error_body(const ApiError& error);
json model_list(const std::string& model, int64_t created);

// Serialized for the wire; bytes that are not UTF-8 become U+FFFD.
std::string to_wire(const json& body);

}  // namespace wgrt::server
