#include "server/openai_request.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <nlohmann/json.hpp>

#include "server/api_error.h"
#include "wgrt/error.h"
#include "wgrt/grammar.h"
#include "wgrt/json_schema.h"

namespace wgrt::server {
namespace {

using nlohmann::json;

// A present, non-null field, or nullptr. OpenAI treats null as "not given".
const json* field(const json& body, const char* name) {
  auto it = body.find(name);
  return it == body.end() || it->is_null() ? nullptr : &*it;
}

[[noreturn]] void wrong_type(const char* name, const char* expected, const json& got) {
  throw ApiError::invalid(std::string("'") + name + "' must be " + expected + ", got " + got.type_name() + " " +
                              got.dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 40),
                          name);
}

std::optional<double> get_number(const json& body, const char* name, double lo, double hi) {
  const json* v = field(body, name);
  if (!v) return std::nullopt;
  if (!v->is_number()) wrong_type(name, "a number", *v);
  const double x = v->get<double>();
  if (!(x >= lo && x <= hi)) {
    throw ApiError::invalid(std::string("'") + name + "' must be in [" + json(lo).dump() + ", " + json(hi).dump() +
                                "], got " + v->dump(),
                            name);
  }
  return x;
}

std::optional<int64_t> get_integer(const json& body, const char* name) {
  const json* v = field(body, name);
  if (!v) return std::nullopt;
  if (v->is_number_integer()) return v->get<int64_t>();
  // 16.0 is an integer in JSON's number model; 16.5 is not.
  if (v->is_number_float() && std::trunc(v->get<double>()) == v->get<double>() && std::abs(v->get<double>()) < 9e15) {
    return int64_t(v->get<double>());
  }
  wrong_type(name, "an integer", *v);
}

bool get_bool(const json& body, const char* name, bool fallback) {
  const json* v = field(body, name);
  if (!v) return fallback;
  if (!v->is_boolean()) wrong_type(name, "a boolean", *v);
  return v->get<bool>();
}

std::string get_string(const json& body, const char* name) {
  const json* v = field(body, name);
  if (!v) return {};
  if (!v->is_string()) wrong_type(name, "a string", *v);
  return v->get<std::string>();
}

std::vector<std::string> get_stop(const json& body) {
  const json* v = field(body, "stop");
  if (!v) return {};
  if (v->is_string()) return {v->get<std::string>()};
  if (!v->is_array()) wrong_type("stop", "a string or an array of strings", *v);
  if (v->size() > 16) throw ApiError::invalid("'stop' has " + std::to_string(v->size()) + " strings; at most 16", "stop");
  std::vector<std::string> out;
  for (const json& s : *v) {
    if (!s.is_string()) wrong_type("stop", "a string or an array of strings", s);
    out.push_back(s.get<std::string>());
  }
  return out;
}

// Features of the API that wgrt does not implement: refused, not ignored,
// so that a client never gets a silently different answer.
void refuse_unsupported(const json& body) {
  if (auto b = get_integer(body, "best_of"); b && *b != 1) throw ApiError::invalid("'best_of' must be 1", "best_of");
  if (const json* v = field(body, "echo"); v && !(v->is_boolean() && !v->get<bool>())) {
    throw ApiError::invalid("'echo' is not supported by wgrt", "echo");
  }
  for (const char* name : {"functions", "suffix"}) {
    const json* v = field(body, name);
    if (v && !(v->is_array() && v->empty()) && !(v->is_object() && v->empty())) {
      throw ApiError::invalid(std::string("'") + name + "' is not supported by wgrt", name);
    }
  }
}

// {"token id": bias in [-100, 100], ...}; ids are checked against the
// vocabulary once the model is known (generation_setup).
std::vector<std::pair<int32_t, float>> get_logit_bias(const json& body) {
  const json* v = field(body, "logit_bias");
  if (!v) return {};
  if (!v->is_object()) wrong_type("logit_bias", "an object mapping token ids to biases", *v);
  std::vector<std::pair<int32_t, float>> out;
  for (const auto& [key, bias] : v->items()) {
    char* end = nullptr;
    const long long id = std::strtoll(key.c_str(), &end, 10);
    if (key.empty() || *end != '\0' || id < 0 || id > std::numeric_limits<int32_t>::max()) {
      throw ApiError::invalid("'logit_bias': key '" + key + "' is not a token id", "logit_bias");
    }
    if (!bias.is_number() || !(bias.get<double>() >= -100 && bias.get<double>() <= 100)) {
      throw ApiError::invalid("'logit_bias': the bias of token " + key + " must be a number in [-100, 100], got " +
                                  bias.dump(),
                              "logit_bias");
    }
    out.emplace_back(int32_t(id), float(bias.get<double>()));
  }
  return out;
}

// llama.cpp's `grammar`: GBNF text (wgrt/grammar.h); not with a
// response_format that shapes the reply.
void get_grammar(const json& body, api::GenerateOptions& options, bool formatted) {
  const json* v = field(body, "grammar");
  if (!v || (v->is_string() && v->get<std::string>().empty())) return;
  if (!v->is_string()) wrong_type("grammar", "a string of GBNF", *v);
  if (formatted) throw ApiError::invalid("'grammar' and a JSON 'response_format' cannot both shape the reply", "grammar");
  try {
    options.grammar = api::parse_grammar(v->get<std::string>());
  } catch (const Error& e) {
    throw ApiError::invalid(std::string("'grammar': ") + e.what(), "grammar");
  }
}

// response_format: {"type": "text"} (the default), {"type": "json_object"},
// or {"type": "json_schema", "json_schema": {"schema": {...}}}.
bool get_response_format(const json& body, api::GenerateOptions& options) {
  const json* v = field(body, "response_format");
  if (!v) return false;
  if (!v->is_object()) wrong_type("response_format", "an object", *v);
  const json* type = field(*v, "type");
  if (!type || !type->is_string()) {
    throw ApiError::invalid("'response_format.type' must be \"text\" or \"json_object\"", "response_format");
  }
  const std::string t = type->get<std::string>();
  if (t == "text") return false;
  if (t == "json_object") return options.json_object = true;
  if (t == "json_schema") {
    const json* spec = field(*v, "json_schema");
    if (!spec || !spec->is_object() || !field(*spec, "schema")) {
      throw ApiError::invalid("'response_format.json_schema.schema' is required for type json_schema",
                              "response_format");
    }
    try {
      options.json_schema = api::parse_json_schema(field(*spec, "schema")->dump());
    } catch (const Error& e) {
      throw ApiError::invalid(std::string("'response_format.json_schema.schema': ") + e.what(), "response_format");
    }
    return true;
  }
  throw ApiError::invalid("'response_format.type' \"" + t +
                              "\" is not supported by wgrt (\"text\", \"json_object\" and \"json_schema\" are)",
                          "response_format");
}

// How many alternatives each token's logprobs list, or -1 for none. Chat:
// `logprobs: true` and `top_logprobs` (0-20); completions: `logprobs: k`.
int32_t get_logprobs(Endpoint endpoint, const json& body) {
  const int64_t most = api::kMaxTopLogprobs;
  auto bounded = [&](std::optional<int64_t> k, const char* name) {
    if (k && (*k < 0 || *k > most)) {
      throw ApiError::invalid(std::string("'") + name + "' must be between 0 and " + std::to_string(most) + ", got " +
                                  std::to_string(*k),
                              name);
    }
    return k;
  };
  if (endpoint == Endpoint::Completions) {
    const auto k = bounded(get_integer(body, "logprobs"), "logprobs");
    return k ? int32_t(*k) : -1;
  }
  const bool on = get_bool(body, "logprobs", false);
  const auto top = bounded(get_integer(body, "top_logprobs"), "top_logprobs");
  if (top && !on) throw ApiError::invalid("'top_logprobs' needs 'logprobs': true", "top_logprobs");
  return on ? int32_t(top.value_or(0)) : -1;
}

std::string message_content(const json& msg, size_t i) {
  const std::string where = "messages[" + std::to_string(i) + "].content";
  auto it = msg.find("content");
  if (it == msg.end() || it->is_null()) throw ApiError::invalid("'" + where + "' is missing", "messages");
  if (it->is_string()) return it->get<std::string>();
  if (!it->is_array()) wrong_type("messages", "messages whose content is a string or an array of text parts", *it);
  std::string text;
  for (const json& part : *it) {
    if (!part.is_object() || part.value("type", json()) != "text" || !part.contains("text") || !part["text"].is_string()) {
      throw ApiError::invalid("'" + where + "': only text parts ({\"type\": \"text\", \"text\": ...}) are supported",
                              "messages");
    }
    text += part["text"].get<std::string>();
  }
  return text;
}

// An assistant message's tool_calls: [{"id", "type": "function", "function":
// {"name", "arguments": JSON object text}}].
std::vector<ToolCall> message_tool_calls(const json& msg, size_t i) {
  const std::string where = "messages[" + std::to_string(i) + "].tool_calls";
  const json& calls = msg["tool_calls"];
  if (!calls.is_array()) throw ApiError::invalid("'" + where + "' must be an array", "messages");
  std::vector<ToolCall> out;
  for (size_t k = 0; k < calls.size(); ++k) {
    const json& c = calls[k];
    const std::string at = where + "[" + std::to_string(k) + "]";
    const json* f = c.is_object() ? field(c, "function") : nullptr;
    if (!f || !f->is_object() || !field(*f, "name") || !(*f)["name"].is_string()) {
      throw ApiError::invalid("'" + at + "' must be {\"id\", \"type\": \"function\", \"function\": {\"name\", \"arguments\"}}",
                              "messages");
    }
    ToolCall call;
    call.id = c.contains("id") && c["id"].is_string() ? c["id"].get<std::string>() : "";
    call.name = (*f)["name"].get<std::string>();
    const json* args = field(*f, "arguments");
    const json parsed = !args ? json::object() : args->is_string() ? json::parse(args->get<std::string>(), nullptr, false) : *args;
    if (!parsed.is_object()) throw ApiError::invalid("'" + at + ".function.arguments' must be a JSON object (as text)", "messages");
    call.arguments = parsed.dump();
    out.push_back(std::move(call));
  }
  return out;
}

std::vector<api::ChatMessage> get_messages(const json& body) {
  const json* v = field(body, "messages");
  if (!v) throw ApiError::invalid("'messages' is required", "messages");
  if (!v->is_array()) wrong_type("messages", "an array", *v);
  if (v->empty()) throw ApiError::invalid("'messages' is empty: give at least one message", "messages");
  std::vector<api::ChatMessage> out;
  for (size_t i = 0; i < v->size(); ++i) {
    const json& m = (*v)[i];
    if (!m.is_object()) wrong_type("messages", "an array of objects", m);
    auto role = m.find("role");
    if (role == m.end() || !role->is_string()) {
      throw ApiError::invalid("'messages[" + std::to_string(i) + "].role' must be a string", "messages");
    }
    const std::string r = role->get<std::string>();
    if (r != "system" && r != "user" && r != "assistant" && r != "developer" && r != "tool") {
      throw ApiError::invalid("'messages[" + std::to_string(i) + "].role' is '" + r +
                                  "'; wgrt supports system, developer, user, assistant and tool",
                              "messages");
    }
    api::ChatMessage msg;
    msg.role = r == "developer" ? "system" : r;
    const bool calls = r == "assistant" && m.contains("tool_calls") && !m["tool_calls"].is_null();
    if (calls) msg.tool_calls = message_tool_calls(m, i);
    // An assistant that only calls may have no content.
    const auto content = m.find("content");
    if (!(calls && (content == m.end() || content->is_null()))) msg.content = message_content(m, i);
    if (r == "tool") {
      const json* id = field(m, "tool_call_id");
      if (!id || !id->is_string()) {
        throw ApiError::invalid("'messages[" + std::to_string(i) + "].tool_call_id' is required for a tool message",
                                "messages");
      }
      msg.tool_call_id = id->get<std::string>();
    }
    out.push_back(std::move(msg));
  }
  return out;
}

// tools, tool_choice and parallel_tool_calls (chat only).
void get_tools(Endpoint endpoint, const json& body, GenerationRequest& req) {
  const json* tools = field(body, "tools");
  const json* choice = field(body, "tool_choice");
  if (endpoint != Endpoint::ChatCompletions) {
    if (tools || choice) throw ApiError::invalid("'tools' are for /v1/chat/completions", tools ? "tools" : "tool_choice");
    return;
  }
  std::vector<api::ToolFunction> functions;
  if (tools && !(tools->is_array() && tools->empty())) {
    try {
      functions = api::parse_tools(tools->dump());
    } catch (const Error& e) {
      throw ApiError::invalid(e.what(), "tools");
    }
    req.tools_json = tools->dump();
    req.tool_choice = ToolChoice::Auto;
  }
  if (const json* p = field(body, "parallel_tool_calls"); p && !p->is_boolean()) {
    wrong_type("parallel_tool_calls", "a boolean", *p);
  }
  if (!choice) return;
  if (choice->is_string()) {
    const std::string c = choice->get<std::string>();
    if (c == "none") {
      req.tool_choice = ToolChoice::None;
    } else if (c == "auto" || c == "required") {
      if (functions.empty()) throw ApiError::invalid("'tool_choice' is '" + c + "' but there are no 'tools'", "tool_choice");
      req.tool_choice = c == "auto" ? ToolChoice::Auto : ToolChoice::Required;
    } else {
      throw ApiError::invalid("'tool_choice' must be \"none\", \"auto\", \"required\" or a named function, got '" + c + "'",
                              "tool_choice");
    }
    return;
  }
  const json* f = choice->is_object() ? field(*choice, "function") : nullptr;
  if (!f || !f->is_object() || !field(*f, "name") || !(*f)["name"].is_string()) {
    wrong_type("tool_choice", "a string or {\"type\": \"function\", \"function\": {\"name\": ...}}", *choice);
  }
  req.tool_name = (*f)["name"].get<std::string>();
  const bool known = std::any_of(functions.begin(), functions.end(),
                                 [&](const api::ToolFunction& t) { return t.name == req.tool_name; });
  if (!known) throw ApiError::invalid("'tool_choice' names '" + req.tool_name + "', which no tool has", "tool_choice");
  req.tool_choice = ToolChoice::Named;
}

void get_prompt(const json& body, GenerationRequest& req) {
  const json* v = field(body, "prompt");
  if (!v) throw ApiError::invalid("'prompt' is required", "prompt");
  if (v->is_string()) {
    req.prompt = v->get<std::string>();
    return;
  }
  if (!v->is_array()) wrong_type("prompt", "a string or an array of token ids", *v);
  if (v->size() == 1 && (*v)[0].is_string()) {  // a batch of one
    req.prompt = (*v)[0].get<std::string>();
    return;
  }
  std::vector<int32_t> ids;
  for (const json& t : *v) {
    if (t.is_string() || t.is_array()) throw ApiError::invalid("'prompt': one prompt per request", "prompt");
    if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() > std::numeric_limits<int32_t>::max()) {
      wrong_type("prompt", "a string or an array of token ids", t);
    }
    ids.push_back(int32_t(t.get<int64_t>()));
  }
  req.prompt_tokens = std::move(ids);
}

constexpr int kMaxBodyNesting = 256;

// Whether the body nests arrays and objects more than kMaxBodyNesting deep:
// nlohmann's SAX parser keeps its own stack (no recursion) and stops at the
// first bracket past the limit; a syntax error is left to the parse after it.
bool nests_too_deep(std::string_view text) {
  struct DepthCheck : nlohmann::json_sax<json> {
    int depth = 0;
    bool too_deep = false;
    bool open() { return !(too_deep = ++depth > kMaxBodyNesting); }
    bool close() { return --depth, true; }
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return open(); }
    bool key(string_t&) override { return true; }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
  } check;
  json::sax_parse(text, &check);
  return check.too_deep;
}

}  // namespace

GenerationRequest parse_generation_request(Endpoint endpoint, std::string_view text) {
  // nlohmann's parser, printer and destructor recurse per level: a body
  // nested a few hundred thousand deep would overflow the stack.
  if (nests_too_deep(text)) {
    throw ApiError::invalid("the request body nests arrays and objects more than " + std::to_string(kMaxBodyNesting) +
                            " deep");
  }
  json body;
  try {
    body = json::parse(text);
  } catch (const json::exception& e) {  // a syntax error, or a number too large for a double (out_of_range)
    throw ApiError::invalid(std::string("the request body is not valid JSON: ") + e.what());
  }
  if (!body.is_object()) throw ApiError::invalid(std::string("the request body must be a JSON object, got ") + body.type_name());

  GenerationRequest req;
  req.endpoint = endpoint;
  req.model = get_string(body, "model");
  if (endpoint == Endpoint::Completions) {
    get_prompt(body, req);
  } else {
    req.messages = get_messages(body);
  }
  refuse_unsupported(body);

  const auto max_tokens = get_integer(body, "max_tokens");
  const auto max_completion = endpoint == Endpoint::ChatCompletions ? get_integer(body, "max_completion_tokens") : std::nullopt;
  req.max_tokens = max_completion ? max_completion : max_tokens;
  if (req.max_tokens && *req.max_tokens <= 0) {
    throw ApiError::invalid("'max_tokens' must be at least 1, got " + std::to_string(*req.max_tokens),
                            max_completion ? "max_completion_tokens" : "max_tokens");
  }
  api::GenerateOptions& s = req.sampler;
  if (auto x = get_number(body, "temperature", 0, 100)) s.temperature = float(*x);
  if (auto x = get_number(body, "top_p", 0, 1)) s.top_p = float(*x);
  if (auto x = get_number(body, "min_p", 0, 1)) s.min_p = float(*x);
  if (auto x = get_number(body, "repeat_penalty", 0, 100)) s.repeat_penalty = float(*x);
  if (auto x = get_number(body, "presence_penalty", -2, 2)) s.presence_penalty = float(*x);
  if (auto x = get_number(body, "frequency_penalty", -2, 2)) s.frequency_penalty = float(*x);
  s.logit_bias = get_logit_bias(body);
  if (auto k = get_integer(body, "top_k")) {
    if (*k < 0 || *k > std::numeric_limits<int32_t>::max()) throw ApiError::invalid("'top_k' must be >= 0", "top_k");
    s.top_k = int32_t(*k);
  }
  if (auto seed = get_integer(body, "seed")) {
    s.seed = uint64_t(*seed);
    req.has_seed = true;
  }
  s.logprobs = get_logprobs(endpoint, body);
  const bool formatted = get_response_format(body, s);
  get_grammar(body, s, formatted);
  get_tools(endpoint, body, req);
  req.stop = get_stop(body);
  if (auto n = get_integer(body, "n")) {
    if (*n < 1 || *n > kMaxChoices) {
      throw ApiError::invalid("'n' must be 1 to " + std::to_string(kMaxChoices) + ", got " + std::to_string(*n), "n");
    }
    req.n = *n;
  }
  req.stream = get_bool(body, "stream", false);
  req.ignore_eos = get_bool(body, "ignore_eos", false);
  req.cache_prompt = get_bool(body, "cache_prompt", true);
  if (const json* opts = field(body, "stream_options")) {
    if (!opts->is_object()) wrong_type("stream_options", "an object", *opts);
    req.include_usage = get_bool(*opts, "include_usage", false);
  }
  return req;
}

}  // namespace wgrt::server
