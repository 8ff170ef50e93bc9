// From a parsed request to what the generation loop runs: the prompt's
// tokens (the chat template applied for chat requests) and the generation
// options, checked against the model's context. Runs on the HTTP thread and
// reads only the model's tokenizer, chat template and sizes (fixed after
// loading: api::Llm's "any thread" calls), never its GPU state.
#pragma once

#include <vector>

#include "server/generation_queue.h"
#include "server/openai_request.h"
#include "wgrt/llm.h"

namespace wgrt::server {

struct PreparedGeneration {
  std::vector<int32_t> prompt;
  api::GenerateOptions options;
  bool cache_prompt = true;  // reuse the cached prefix the prompt repeats
  // Tool calls: the format the reply is read in (None: it is text), and the
  // text the prompt already ends with and the reply is taken to end with
  // when the call was required (the format's markers around the JSON).
  ToolCallFormat tool_format = ToolCallFormat::None;
  std::string reply_prefix, reply_suffix;
};

// A finished reply read as the request asked: as text, or as tool calls in
// the model's format (the prompt's prefix and, for a complete call, the
// format's closing marker put back around what was generated). A reply with
// no well-formed call stays text.
struct ReplyReader {
  ToolCallFormat format = ToolCallFormat::None;
  std::string prefix, suffix;

  struct Reply {
    std::string text;
    std::vector<ToolCall> tool_calls;
  };
  bool reads_calls() const { return format != ToolCallFormat::None; }
  Reply read(const std::string& generated, const JobResult& result) const;
};

// ApiError(400) for a prompt that leaves no room in the context, a
// max_tokens that does not fit beside it, or token ids outside the vocabulary.
PreparedGeneration prepare_generation(const api::Llm& model, const GenerationRequest& request);

}  // namespace wgrt::server
