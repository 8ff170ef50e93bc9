// The Jinja subset interpreter against Python's jinja2 rendering the same
// templates (tests/fixtures/chat/: our renditions of the ChatML/Qwen, Llama 3,
// Llama 3.x, Mistral, Phi-3, Gemma and Gemma 3 formats, feature templates,
// and the real templates of Qwen2.5, Qwen3, Phi-3.5 and Mistral Nemo) on the
// same conversations, configured as Hugging Face's apply_chat_template
// (tools/fixtures/make_chat_template_fixtures.py). Exact text comparison.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "llm/fixture_rows.h"
#include "llm/jinja/jinja.h"
#include "llm/tokenizer/chat_template.h"
#include "wgrt/error.h"

namespace wgrt::llm {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Jinja, ChatTemplatesRenderAsJinja2Does) {
  const auto rows = test::fixture_rows(test::fixture_path("chat/renders.txt"));
  ASSERT_GE(rows.size(), 60u);
  std::map<std::string, size_t> per_template;
  size_t errors = 0;
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 4u);
    const std::string& name = r[0];
    ++per_template[name];
    const ChatTemplate t =
        ChatTemplate::from_jinja(read_text(test::fixture_path("chat/" + name + ".jinja")), "<s>", "</s>");
    ASSERT_TRUE(t.runs_jinja());
    std::vector<ChatMessage> messages;
    for (const std::string& m : test::split(r[2], ' ')) {
      const size_t colon = m.find(':');
      messages.push_back({test::unhex(m.substr(0, colon)), test::unhex(m.substr(colon + 1))});
    }
    const bool gen = r[1] == "1";
    SCOPED_TRACE(name + " with " + std::to_string(messages.size()) + " messages, add_generation_prompt " + r[1]);
    if (r[3].rfind('!', 0) == 0) {  // jinja2 raised: so must we, with its message
      ++errors;
      try {
        t.apply(messages, gen);
        ADD_FAILURE() << "expected raise_exception";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
        EXPECT_NE(std::string(e.what()).find(test::unhex(r[3].substr(1))), std::string::npos) << e.what();
      }
      continue;
    }
    EXPECT_EQ(t.apply(messages, gen), test::unhex(r[3]));
  }
  EXPECT_EQ(per_template.size(), 12u);
  EXPECT_GT(errors, 0u);
}

jinja::Value to_value(const nlohmann::ordered_json& j) {
  using jinja::Value;
  if (j.is_null()) return Value::none();
  if (j.is_boolean()) return Value::boolean(j.get<bool>());
  if (j.is_number_integer()) return Value::integer(j.get<int64_t>());
  if (j.is_number()) return Value::number(j.get<double>());
  if (j.is_string()) return Value::string(j.get<std::string>());
  if (j.is_array()) {
    jinja::Array a;
    for (const auto& x : j) a.push_back(to_value(x));
    return Value::list(std::move(a));
  }
  jinja::Object o;
  for (const auto& [k, x] : j.items()) o.emplace_back(k, to_value(x));
  return Value::dict(std::move(o));
}

// Tools, tool calls and results, content lists, reasoning text, custom
// variables and strftime_now (at the fixture's fixed time) through the
// interpreter directly, for the real templates of Qwen2.5, Qwen3, Phi-3.5 and
// Mistral Nemo, our Llama 3.x and Gemma 3 renditions, and a macro/set-block
// feature template (tests/fixtures/chat/structured.jsonl).
TEST(Jinja, ToolsContentListsAndDatesRenderAsJinja2Does) {
  std::ifstream in(test::fixture_path("chat/structured.jsonl"));
  ASSERT_TRUE(in.good());
  std::string header_line;
  ASSERT_TRUE(std::getline(in, header_line));
  const auto header = nlohmann::ordered_json::parse(header_line);
  std::map<std::string, size_t> per_template;
  size_t errors = 0, rows = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    ++rows;
    const auto row = nlohmann::ordered_json::parse(line);
    const std::string name = row["template"];
    ++per_template[name];
    const jinja::Value context = to_value(row["context"]);
    std::tm now{};
    now.tm_year = row["now"][0].get<int>() - 1900;
    now.tm_mon = row["now"][1].get<int>() - 1;
    now.tm_mday = row["now"][2].get<int>();
    now.tm_hour = row["now"][3].get<int>();
    now.tm_min = row["now"][4].get<int>();
    now.tm_sec = row["now"][5].get<int>();
    std::mktime(&now);  // fills in the weekday and day of the year
    SCOPED_TRACE(name + " on row " + std::to_string(rows) + ": " + row["context"].dump().substr(0, 160));
    const auto t = jinja::Template::parse(read_text(test::fixture_path("chat/" + name)));
    if (row.contains("error")) {
      ++errors;
      try {
        t.render(*context.object, &now);
        ADD_FAILURE() << "expected raise_exception";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(row["error"].get<std::string>()), std::string::npos) << e.what();
      }
      continue;
    }
    try {
      EXPECT_EQ(t.render(*context.object, &now), row["render"].get<std::string>());
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
    }
  }
  // The header says how many (tests/e2e/test_llama_cpp_chat_templates.py
  // runs this test on another fixture folder through WGRT_FIXTURES_DIR).
  EXPECT_EQ(rows, header["rows"].get<size_t>());
  EXPECT_EQ(per_template.size(), header["templates"].get<size_t>());
  EXPECT_GE(rows, 140u);
  EXPECT_GT(errors, 0u);
}

TEST(Jinja, MacrosAndSetBlocks) {
  const auto t = jinja::Template::parse(
      "{% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}"
      "{% set block %}[{{ greet('a') }} {{ greet('b', punct='?') }}]{% endset %}{{ block | upper }}"
      "{% if greet is defined %} defined{% endif %}");
  EXPECT_EQ(t.render({}), "[HI A! HI B?] defined");
  // A macro sees the template's top-level variables but not the caller's loop variables.
  const auto scoped = jinja::Template::parse(
      "{% set top = 'T' %}{% macro m() %}{{ top }}{{ x is defined }}{% endmacro %}{% for x in [1] %}{{ m() }}{% endfor %}");
  EXPECT_EQ(scoped.render({}), "TFalse");
  try {
    jinja::Template::parse("{% macro m(a) %}{% endmacro %}{{ m(1, 2) }}").render({});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("macro 'm' takes 1 arguments, got 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(jinja::Template::parse("{% set x %}no end"), Error);
}

TEST(Jinja, UnsupportedConstructsNameTheirLine) {
  try {
    jinja::Template::parse("ok\n{% call m() %}{% endcall %}");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("call"), std::string::npos) << e.what();
  }
  EXPECT_THROW(jinja::Template::parse("{{ x "), Error);
  EXPECT_THROW(jinja::Template::parse("{% if x %}no end"), Error);
  EXPECT_THROW(jinja::Template::parse("{{ x | nosuchfilter }}").render({}), Error);
}

TEST(Jinja, TemplatesOutsideTheSubsetFallBackToTheBuiltInFormat) {
  // from_gguf's fallback: a ChatML template with a call block still renders ChatML.
  const ChatTemplate t = ChatTemplate::from_source("{% call x() %}{% endcall %}<|im_start|>");
  EXPECT_FALSE(t.runs_jinja());
  EXPECT_EQ(t.format(), ChatFormat::ChatML);
}

}  // namespace
}  // namespace wgrt::llm
