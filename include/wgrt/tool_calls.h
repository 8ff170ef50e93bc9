// Tool calls (OpenAI's `tools`): how a model writes a call to a function in
// its reply, read back out of the reply, and the constraint that makes a
// model write one (tool_choice "required" or a named function).
//
// A model is trained on one way of writing calls, which its chat template
// shows (ToolCallFormat, read from the template's markers):
//   Hermes   <tool_call>{"name": ..., "arguments": {...}}</tool_call>   (Qwen2.5, Qwen3, Hermes, SmolLM3)
//   Llama3   {"name": ..., "parameters": {...}}, or after <|python_tag|> (Llama 3.1-3.3)
//   Mistral  [TOOL_CALLS][{"name": ..., "arguments": {...}}, ...]
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "wgrt/json_schema.h"

namespace wgrt {

struct ToolCall {
  std::string id;         // "call_..." (made up when the model writes none)
  std::string name;       // the function's
  std::string arguments;  // a JSON object, as text
};

enum class ToolCallFormat { None, Hermes, Llama3, Mistral };

// "none", "hermes", "llama3", "mistral".
const char* tool_call_format_name(ToolCallFormat format);

namespace api {

// The format a chat template's Jinja source shows (None: it renders no tools).
ToolCallFormat tool_call_format_of(std::string_view template_source);

// A reply split into its text and the calls written in `format`. A call
// that is not well-formed JSON with a name stays in the text.
struct ParsedReply {
  std::string content;
  std::vector<ToolCall> tool_calls;
};
ParsedReply parse_tool_calls(ToolCallFormat format, std::string_view reply);

// One function of OpenAI's `tools` array: {"type": "function", "function":
// {"name", "description"?, "parameters"?}}.
struct ToolFunction {
  std::string name;
  std::string parameters;  // a JSON Schema of an object, as text ({"type": "object"} when absent)
};
// `tools` (a JSON array, as text) read and checked: InvalidArgument naming
// the entry and what is wrong (not an object, no name, a repeated name,
// parameters that are not an object schema).
std::vector<ToolFunction> parse_tools(std::string_view tools_json);

// What makes a model write a call (tool_choice "required", or one named
// function when `only` is not empty): the reply begins with `prefix` (put at
// the end of the prompt), then JSON of `schema` (each function's name tied
// to its parameters' schema), then `suffix`. NotSupported for the None
// format, InvalidArgument for an `only` that no tool names or parameters
// outside the JSON-Schema subset (wgrt/json_schema.h).
struct ToolCallConstraint {
  std::string prefix, suffix;
  std::shared_ptr<const JsonSchema> schema;
  std::string schema_json;  // the same schema as JSON text
};
ToolCallConstraint tool_call_constraint(ToolCallFormat format, const std::vector<ToolFunction>& tools,
                                        std::string_view only = {});

}  // namespace api
}  // namespace wgrt
