// The two generation requests of the OpenAI API, read from their JSON bodies
// with every known field type-checked: /v1/completions (a prompt) and
// /v1/chat/completions (messages). Unknown fields are ignored, as OpenAI's
// own server does; known fields of the wrong type or out of range, and
// features wgrt lacks (legacy functions, echo, ...) are ApiError 400.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wgrt/llm.h"

namespace wgrt::server {

enum class Endpoint { Completions, ChatCompletions };

// OpenAI's tool_choice: none (tools shown, replies read as text), auto (the
// model may call), required (it must call one), a named function (that one).
enum class ToolChoice { None, Auto, Required, Named };

// The most choices (`n`) one request may ask for.
constexpr int64_t kMaxChoices = 16;

struct GenerationRequest {
  Endpoint endpoint = Endpoint::Completions;
  std::string model;                           // as sent; answers name the loaded model
  std::string prompt;                          // completions: text
  std::optional<std::vector<int32_t>> prompt_tokens;       // completions: token ids instead
  std::vector<api::ChatMessage> messages;      // chat
  std::optional<int64_t> max_tokens;           // absent: 16 for completions, the rest of the context for chat
  // Sampling (temperature, top_k, top_p, min_p, repeat_penalty, seed) as
  // the request sets it, wgrt generate's defaults where it is silent; the
  // other fields are generation_setup's.
  api::GenerateOptions sampler;
  bool has_seed = false;                       // without a seed each request draws its own
  std::vector<std::string> stop;
  int64_t n = 1;                               // choices, each its own sequence (1 to kMaxChoices)
  bool stream = false;
  bool include_usage = false;                  // stream_options.include_usage
  bool ignore_eos = false;                     // extension (llama.cpp's server has it too)
  // Extension (llama.cpp's server has it too): start from the part of the KV
  // cache the prompt repeats (the previous turns of a chat) instead of from
  // an empty cache.
  bool cache_prompt = true;
  // Chat: `tools` as sent (a JSON array, checked), tool_choice, and the
  // function a Named choice names.
  std::string tools_json;
  ToolChoice tool_choice = ToolChoice::None;
  std::string tool_name;
};

// Throws ApiError(400) naming the field at fault.
GenerationRequest parse_generation_request(Endpoint endpoint, std::string_view body);

}  // namespace wgrt::server
