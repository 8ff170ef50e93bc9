// Tool calls (wgrt/tool_calls.h): reading the tools, the calls out of a
// reply, and the constraint that makes a model write one.
#include "wgrt/tool_calls.h"

#include <cctype>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "core/json_scan.h"
#include "wgrt/error.h"

namespace wgrt {

using nlohmann::json;

const char* tool_call_format_name(ToolCallFormat format) {
  switch (format) {
    case ToolCallFormat::Hermes: return "hermes";
    case ToolCallFormat::Llama3: return "llama3";
    case ToolCallFormat::Mistral: return "mistral";
    case ToolCallFormat::None: break;
  }
  return "none";
}

namespace api {
namespace {

bool contains(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

// The end (one past) of the JSON object or array that starts at `at`, or npos
// when it does not close.
size_t json_end(std::string_view s, size_t at) {
  size_t end = std::string_view::npos;
  walk_json_brackets(s, at, [&](size_t i, int depth) {
    if (depth == 0) end = i + 1;
    return depth > 0;
  });
  return end;
}

size_t skip_space(std::string_view s, size_t at) {
  while (at < s.size() && std::isspace(static_cast<unsigned char>(s[at]))) ++at;
  return at;
}

std::string trimmed(std::string_view s) {
  const size_t b = skip_space(s, 0);
  size_t e = s.size();
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// OpenAI's ids look like "call_" and 24 letters and digits.
std::string new_call_id() {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string id = "call_";
  for (int i = 0; i < 24; ++i) id.push_back(kChars[rng() % (sizeof(kChars) - 1)]);
  return id;
}

// {"name": ..., "arguments" or "parameters": {...} or its text} as a call;
// false for anything else.
bool read_call(const json& j, ToolCall& call) {
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty()) {
    return false;
  }
  call.name = j["name"].get<std::string>();
  const json* args = j.contains("arguments") ? &j["arguments"] : j.contains("parameters") ? &j["parameters"] : nullptr;
  json object = json::object();
  if (args != nullptr && args->is_string()) {
    object = json::parse(args->get<std::string>(), nullptr, false);
    if (!object.is_object()) return false;
  } else if (args != nullptr) {
    if (!args->is_object()) return false;
    object = *args;
  }
  call.arguments = object.dump();
  call.id = j.contains("id") && j["id"].is_string() && !j["id"].get<std::string>().empty() ? j["id"].get<std::string>()
                                                                                             : new_call_id();
  return true;
}

// The JSON value at `at` (an object or array), parsed; discarded when it is
// not whole JSON. `end` is set one past it.
json json_at(std::string_view s, size_t at, size_t& end) {
  end = at < s.size() && (s[at] == '{' || s[at] == '[') ? json_end(s, at) : std::string_view::npos;
  if (end == std::string_view::npos) return json::value_t::discarded;
  return json::parse(s.substr(at, end - at), nullptr, false);
}

// Hermes: each <tool_call>JSON</tool_call> (the closing tag may be cut off
// by the end of generation).
ParsedReply parse_hermes(std::string_view reply) {
  constexpr std::string_view kOpen = "<tool_call>", kClose = "</tool_call>";
  ParsedReply out;
  std::string text;
  size_t at = 0;
  while (true) {
    const size_t open = reply.find(kOpen, at);
    if (open == std::string_view::npos) break;
    size_t end = 0;
    const json j = json_at(reply, skip_space(reply, open + kOpen.size()), end);
    ToolCall call;
    if (j.is_discarded() || !read_call(j, call)) {
      text += std::string(reply.substr(at, open + kOpen.size() - at));
      at = open + kOpen.size();
      continue;
    }
    text += std::string(reply.substr(at, open - at));
    out.tool_calls.push_back(std::move(call));
    at = skip_space(reply, end);
    if (reply.substr(at, kClose.size()) == kClose) at += kClose.size();
  }
  text += std::string(reply.substr(at));
  out.content = trimmed(text);
  return out;
}

// Mistral's later templates (v11 on): [TOOL_CALLS]name[ARGS]{...} once per
// call, an optional [CALL_ID]id before [ARGS]. The calls from `mark` on, and
// where they end; false unless every marker from there is a whole call.
bool read_args_calls(std::string_view reply, size_t mark, std::vector<ToolCall>& calls, size_t& end) {
  constexpr std::string_view kMarker = "[TOOL_CALLS]", kArgs = "[ARGS]", kId = "[CALL_ID]";
  size_t at = mark;
  while (reply.substr(at, kMarker.size()) == kMarker) {
    const size_t name_at = at + kMarker.size();
    const size_t bracket = reply.find('[', name_at);
    if (bracket == std::string_view::npos) return false;
    ToolCall call;
    call.name = trimmed(reply.substr(name_at, bracket - name_at));
    size_t args_at = bracket;
    std::string id;
    if (reply.substr(bracket, kId.size()) == kId) {
      args_at = reply.find(kArgs, bracket + kId.size());
      if (args_at == std::string_view::npos) return false;
      id = trimmed(reply.substr(bracket + kId.size(), args_at - bracket - kId.size()));
    }
    if (call.name.empty() || reply.substr(args_at, kArgs.size()) != kArgs) return false;
    const json args = json_at(reply, skip_space(reply, args_at + kArgs.size()), end);
    if (!args.is_object()) return false;
    call.arguments = args.dump();
    call.id = id.empty() ? new_call_id() : id;
    calls.push_back(std::move(call));
    at = skip_space(reply, end);
  }
  return !calls.empty();
}

// Mistral: [TOOL_CALLS] and a JSON array of calls, or the later
// [TOOL_CALLS]name[ARGS]{...} form.
ParsedReply parse_mistral(std::string_view reply) {
  constexpr std::string_view kMarker = "[TOOL_CALLS]";
  ParsedReply out;
  const size_t mark = reply.find(kMarker);
  if (mark == std::string_view::npos) {
    out.content = trimmed(reply);
    return out;
  }
  if (const size_t first = skip_space(reply, mark + kMarker.size()); first < reply.size() && reply[first] != '[') {
    std::vector<ToolCall> calls;
    size_t end = 0;
    if (!read_args_calls(reply, mark, calls, end)) {
      out.content = trimmed(reply);
      return out;
    }
    out.tool_calls = std::move(calls);
    out.content = trimmed(std::string(reply.substr(0, mark)) + std::string(reply.substr(end)));
    return out;
  }
  size_t end = 0;
  const json j = json_at(reply, skip_space(reply, mark + kMarker.size()), end);
  std::vector<ToolCall> calls;
  bool ok = j.is_array() && !j.empty();
  for (size_t i = 0; ok && i < j.size(); ++i) {
    ToolCall call;
    ok = read_call(j[i], call);
    calls.push_back(std::move(call));
  }
  if (!ok) {
    out.content = trimmed(reply);
    return out;
  }
  out.tool_calls = std::move(calls);
  out.content = trimmed(std::string(reply.substr(0, mark)) + std::string(reply.substr(end)));
  return out;
}

// Llama 3: the reply is a call ({"name", "parameters"}), or several joined
// by ';', optionally after <|python_tag|>; anything else is text.
ParsedReply parse_llama3(std::string_view reply) {
  constexpr std::string_view kTag = "<|python_tag|>";
  ParsedReply out;
  size_t at = skip_space(reply, 0);
  if (reply.substr(at, kTag.size()) == kTag) at = skip_space(reply, at + kTag.size());
  std::vector<ToolCall> calls;
  while (at < reply.size()) {
    size_t end = 0;
    const json j = json_at(reply, at, end);
    ToolCall call;
    if (j.is_discarded() || !read_call(j, call)) break;
    calls.push_back(std::move(call));
    at = skip_space(reply, end);
    if (at < reply.size() && reply[at] == ';') at = skip_space(reply, at + 1);
  }
  if (calls.empty() || at < reply.size()) {
    out.content = trimmed(reply);
    return out;
  }
  out.tool_calls = std::move(calls);
  return out;
}

[[noreturn]] void bad_tools(const std::string& what) {
  throw Error(ErrorCode::InvalidArgument, "tools: " + what);
}

// The schema of one call of `f` as the format writes it.
json call_schema(ToolCallFormat format, const ToolFunction& f) {
  const char* args_key = format == ToolCallFormat::Llama3 ? "parameters" : "arguments";
  json params = json::parse(f.parameters);
  return {{"type", "object"},
          {"properties", {{"name", {{"const", f.name}}}, {args_key, params}}},
          {"required", {"name", args_key}},
          {"additionalProperties", false}};
}

}  // namespace

ToolCallFormat tool_call_format_of(std::string_view source) {
  if (contains(source, "<tool_call>")) return ToolCallFormat::Hermes;
  if (contains(source, "[TOOL_CALLS]")) return ToolCallFormat::Mistral;
  if (contains(source, "<|python_tag|>") || (contains(source, "ipython") && contains(source, "tools"))) {
    return ToolCallFormat::Llama3;
  }
  return ToolCallFormat::None;
}

ParsedReply parse_tool_calls(ToolCallFormat format, std::string_view reply) {
  switch (format) {
    case ToolCallFormat::Hermes: return parse_hermes(reply);
    case ToolCallFormat::Mistral: return parse_mistral(reply);
    case ToolCallFormat::Llama3: return parse_llama3(reply);
    case ToolCallFormat::None: break;
  }
  return {std::string(reply), {}};
}

std::vector<ToolFunction> parse_tools(std::string_view tools_json) {
  const json tools = json::parse(tools_json, nullptr, false);
  if (!tools.is_array()) bad_tools("expected an array of {\"type\": \"function\", \"function\": {...}}");
  std::vector<ToolFunction> out;
  std::set<std::string> names;
  for (size_t i = 0; i < tools.size(); ++i) {
    const std::string where = "tools[" + std::to_string(i) + "]";
    const json& t = tools[i];
    if (!t.is_object()) bad_tools(where + " is not an object");
    if (t.contains("type") && t["type"] != "function") {
      bad_tools(where + ".type is " + t["type"].dump() + "; only \"function\" tools are supported");
    }
    if (!t.contains("function") || !t["function"].is_object()) bad_tools(where + ".function is missing");
    const json& f = t["function"];
    if (!f.contains("name") || !f["name"].is_string() || f["name"].get<std::string>().empty()) {
      bad_tools(where + ".function.name must be a non-empty string");
    }
    const std::string name = f["name"].get<std::string>();
    for (char c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
        bad_tools(where + ".function.name '" + name + "' may hold only letters, digits, '_', '-' and '.'");
      }
    }
    if (!names.insert(name).second) bad_tools(where + ".function.name '" + name + "' is repeated");
    json params = f.contains("parameters") ? f["parameters"] : json{{"type", "object"}};
    if (!params.is_object()) bad_tools(where + ".function.parameters must be a JSON Schema object");
    out.push_back({name, params.dump()});
  }
  return out;
}

ToolCallConstraint tool_call_constraint(ToolCallFormat format, const std::vector<ToolFunction>& tools,
                                        std::string_view only) {
  if (format == ToolCallFormat::None) {
    throw Error(ErrorCode::NotSupported, "this model's chat template shows no tool-call format (wgrt reads "
                                         "Hermes <tool_call>, Llama 3 JSON and Mistral [TOOL_CALLS])");
  }
  json options = json::array(), defs = json::object();
  for (const ToolFunction& f : tools) {
    if (!only.empty() && f.name != only) continue;
    json one = call_schema(format, f);
    // $defs of a function's parameters move to the root, where its $refs point.
    json& params = one["properties"][format == ToolCallFormat::Llama3 ? "parameters" : "arguments"];
    for (const char* section : {"$defs", "definitions"}) {
      if (!params.contains(section)) continue;
      for (auto& [k, v] : params[section].items()) {
        if (defs.contains(k)) bad_tools("two functions define '" + k + "' in their " + section);
        defs[k] = v;
      }
      params.erase(section);
    }
    options.push_back(std::move(one));
  }
  if (options.empty()) {
    throw Error(ErrorCode::InvalidArgument, "tool_choice names '" + std::string(only) + "', which no tool has");
  }
  json root = options.size() == 1 ? options[0] : json{{"anyOf", options}};
  ToolCallConstraint c;
  if (format == ToolCallFormat::Mistral) root = {{"type", "array"}, {"items", root}, {"minItems", 1}};
  if (!defs.empty()) root["$defs"] = defs;
  switch (format) {
    case ToolCallFormat::Hermes:
      c.prefix = "<tool_call>\n";
      c.suffix = "\n</tool_call>";
      break;
    case ToolCallFormat::Mistral: c.prefix = "[TOOL_CALLS]"; break;
    case ToolCallFormat::Llama3:
    case ToolCallFormat::None: break;
  }
  c.schema_json = root.dump();
  try {
    c.schema = parse_json_schema(c.schema_json);
  } catch (const Error& e) {
    throw Error(ErrorCode::InvalidArgument, std::string("tools: a function's parameters: ") + e.what());
  }
  return c;
}

}  // namespace api
}  // namespace wgrt
