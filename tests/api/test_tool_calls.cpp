// Tool calls (wgrt/tool_calls.h) without a GPU: the format a chat template
// shows, the calls read out of recorded replies in each family's format, the
// tools checked, and the constraint a required call follows.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "wgrt/error.h"
#include "wgrt/tool_calls.h"

namespace wgrt::api {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(WGRT_FIXTURES_DIR) + "/chat/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ToolCallsTest, TheTemplateSaysTheFormat) {
  EXPECT_EQ(tool_call_format_of(fixture("real_qwen2_5.jinja")), ToolCallFormat::Hermes);
  EXPECT_EQ(tool_call_format_of(fixture("real_qwen3.jinja")), ToolCallFormat::Hermes);
  EXPECT_EQ(tool_call_format_of(fixture("real_mistral_nemo.jinja")), ToolCallFormat::Mistral);
  EXPECT_EQ(tool_call_format_of(fixture("chatml_qwen.jinja")), ToolCallFormat::None);
  EXPECT_EQ(tool_call_format_of("{% if tools %}Environment: ipython{% endif %}<|python_tag|>"), ToolCallFormat::Llama3);
}

// Replies as Qwen2.5 writes them (two calls, text before).
TEST(ToolCallsTest, HermesCallsAreReadWithTheTextAroundThem) {
  const ParsedReply r = parse_tool_calls(
      ToolCallFormat::Hermes,
      "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n"
      "</tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": \"{\\\"tz\\\": \\\"CET\\\"}\"}\n</tool_call>");
  EXPECT_EQ(r.content, "Let me check.");
  ASSERT_EQ(r.tool_calls.size(), 2u);
  EXPECT_EQ(r.tool_calls[0].name, "get_weather");
  EXPECT_EQ(r.tool_calls[0].arguments, R"({"city":"Paris","days":2})");
  EXPECT_EQ(r.tool_calls[1].name, "get_time");
  EXPECT_EQ(r.tool_calls[1].arguments, R"({"tz":"CET"})") << "arguments given as text are read as JSON";
  EXPECT_EQ(r.tool_calls[0].id.rfind("call_", 0), 0u);
  EXPECT_EQ(r.tool_calls[0].id.size(), 29u);
  EXPECT_NE(r.tool_calls[0].id, r.tool_calls[1].id);
}

TEST(ToolCallsTest, AMalformedCallStaysText) {
  for (const char* reply : {"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": }\n</tool_call>",
                            "<tool_call>{\"arguments\": {}}</tool_call>", "<tool_call>[1, 2]</tool_call>",
                            "<tool_call>{\"name\": \"f\", \"arguments\": [1]}</tool_call>", "no call here"}) {
    SCOPED_TRACE(reply);
    const ParsedReply r = parse_tool_calls(ToolCallFormat::Hermes, reply);
    EXPECT_TRUE(r.tool_calls.empty());
    EXPECT_EQ(r.content, reply);
  }
  // The closing tag cut off by the end of generation: the call is whole.
  const ParsedReply cut = parse_tool_calls(ToolCallFormat::Hermes, "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}");
  ASSERT_EQ(cut.tool_calls.size(), 1u);
  EXPECT_EQ(cut.tool_calls[0].arguments, "{}");
}

TEST(ToolCallsTest, Llama3CallsAreJsonWithParameters) {
  const ParsedReply one =
      parse_tool_calls(ToolCallFormat::Llama3, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}");
  ASSERT_EQ(one.tool_calls.size(), 1u);
  EXPECT_EQ(one.tool_calls[0].arguments, R"({"city":"Oslo"})");
  EXPECT_EQ(one.content, "");
  const ParsedReply tagged = parse_tool_calls(
      ToolCallFormat::Llama3, "<|python_tag|>{\"name\": \"a\", \"parameters\": {}}; {\"name\": \"b\", \"parameters\": {}}");
  ASSERT_EQ(tagged.tool_calls.size(), 2u);
  EXPECT_EQ(tagged.tool_calls[1].name, "b");
  const ParsedReply prose = parse_tool_calls(ToolCallFormat::Llama3, "The weather is {\"name\": \"x\"} fine.");
  EXPECT_TRUE(prose.tool_calls.empty());
  EXPECT_EQ(prose.content, "The weather is {\"name\": \"x\"} fine.");
}

TEST(ToolCallsTest, MistralCallsFollowTheMarker) {
  const ParsedReply r = parse_tool_calls(
      ToolCallFormat::Mistral,
      "[TOOL_CALLS][{\"name\": \"a\", \"arguments\": {\"x\": 1}, \"id\": \"abc123xyz\"}, {\"name\": \"b\", \"arguments\": {}}]");
  ASSERT_EQ(r.tool_calls.size(), 2u);
  EXPECT_EQ(r.tool_calls[0].id, "abc123xyz") << "an id the model wrote is kept";
  EXPECT_EQ(r.tool_calls[1].name, "b");
  EXPECT_EQ(r.content, "");
  EXPECT_TRUE(parse_tool_calls(ToolCallFormat::Mistral, "[TOOL_CALLS][]").tool_calls.empty());
  EXPECT_TRUE(parse_tool_calls(ToolCallFormat::None, "<tool_call>{\"name\": \"a\"}</tool_call>").tool_calls.empty());
}

TEST(ToolCallsTest, MistralsLaterFormatNamesEachCallBeforeItsArgs) {
  const ParsedReply r = parse_tool_calls(
      ToolCallFormat::Mistral,
      "Checking. [TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}[TOOL_CALLS]get_time[CALL_ID]c0ffee123[ARGS]{}");
  ASSERT_EQ(r.tool_calls.size(), 2u);
  EXPECT_EQ(r.tool_calls[0].name, "get_weather");
  EXPECT_EQ(r.tool_calls[0].arguments, "{\"city\":\"Paris\"}");
  EXPECT_EQ(r.tool_calls[0].id.rfind("call_", 0), 0u) << "a made id when the model wrote none";
  EXPECT_EQ(r.tool_calls[1].name, "get_time");
  EXPECT_EQ(r.tool_calls[1].id, "c0ffee123");
  EXPECT_EQ(r.content, "Checking.");
  // Cut off before its arguments end, or without [ARGS]: no call, the text kept.
  const std::string cut = "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Par";
  EXPECT_TRUE(parse_tool_calls(ToolCallFormat::Mistral, cut).tool_calls.empty());
  EXPECT_EQ(parse_tool_calls(ToolCallFormat::Mistral, cut).content, cut);
  EXPECT_TRUE(parse_tool_calls(ToolCallFormat::Mistral, "[TOOL_CALLS]get_weather{}").tool_calls.empty());
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ToolCallsTest, ToolsAreChecked) {
  const auto tools = parse_tools(
      R"([{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
          "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
          {"type": "function", "function": {"name": "now"}}])");
  ASSERT_EQ(tools.size(), 2u);
  EXPECT_EQ(tools[1].parameters, R"({"type":"object"})");
  EXPECT_NE(error_of([] { parse_tools("{}"); }).find("expected an array"), std::string::npos);
  EXPECT_NE(error_of([] { parse_tools(R"([{"type": "function", "function": {}}])"); }).find("tools[0].function.name"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_tools(R"([{"function": {"name": "a"}}, {"function": {"name": "a"}}])");
            }).find("tools[1].function.name 'a' is repeated"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_tools(R"([{"type": "retrieval"}])"); }).find("only \"function\" tools"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_tools(R"([{"function": {"name": "a b"}}])"); }).find("may hold only"),
            std::string::npos);
}

TEST(ToolCallsTest, ARequiredCallIsTheFormatsMarkersAroundASchema) {
  const auto tools = parse_tools(
      R"([{"function": {"name": "get_weather", "parameters": {"type": "object",
          "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
          {"function": {"name": "now"}}])");
  const ToolCallConstraint hermes = tool_call_constraint(ToolCallFormat::Hermes, tools);
  EXPECT_EQ(hermes.prefix, "<tool_call>\n");
  EXPECT_EQ(hermes.suffix, "\n</tool_call>");
  ASSERT_NE(hermes.schema, nullptr);
  EXPECT_EQ(hermes.schema->nodes[0].type, JsonSchemaNode::Type::AnyOf) << "one object per function";
  EXPECT_EQ(hermes.schema->nodes[0].options.size(), 2u);
  const ToolCallConstraint named = tool_call_constraint(ToolCallFormat::Hermes, tools, "now");
  EXPECT_EQ(named.schema->nodes[0].type, JsonSchemaNode::Type::Object);
  const ToolCallConstraint mistral = tool_call_constraint(ToolCallFormat::Mistral, tools);
  EXPECT_EQ(mistral.prefix, "[TOOL_CALLS]");
  EXPECT_EQ(mistral.schema->nodes[0].type, JsonSchemaNode::Type::Array);
  EXPECT_NE(error_of([&] { tool_call_constraint(ToolCallFormat::Hermes, tools, "other"); }).find("no tool has"),
            std::string::npos);
  EXPECT_NE(error_of([&] { tool_call_constraint(ToolCallFormat::None, tools); }).find("no tool-call format"),
            std::string::npos);
  const auto bad = parse_tools(R"([{"function": {"name": "f", "parameters": {"type": "object", "patternProperties": {}}}}])");
  EXPECT_NE(error_of([&] { tool_call_constraint(ToolCallFormat::Hermes, bad); }).find("patternProperties"),
            std::string::npos);
}

}  // namespace
}  // namespace wgrt::api
