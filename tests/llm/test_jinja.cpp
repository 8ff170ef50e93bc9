// The Jinja subset interpreter against Python's jinja2 rendering the same
// templates (tests/fixtures/chat/*.jinja, our renditions of the ChatML/Qwen,
// Llama 3, Mistral, Phi-3 and Gemma formats and two feature templates) on
// the same conversations, configured as Hugging Face's apply_chat_template
// (tools/fixtures/make_chat_template_fixtures.py). Exact text comparison.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
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
  EXPECT_EQ(per_template.size(), 7u);
  EXPECT_GT(errors, 0u);
}

TEST(Jinja, UnsupportedConstructsNameTheirLine) {
  try {
    jinja::Template::parse("ok\n{% macro m() %}{% endmacro %}");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("macro"), std::string::npos) << e.what();
  }
  EXPECT_THROW(jinja::Template::parse("{{ x "), Error);
  EXPECT_THROW(jinja::Template::parse("{% if x %}no end"), Error);
  EXPECT_THROW(jinja::Template::parse("{{ x | nosuchfilter }}").render({}), Error);
}

TEST(Jinja, TemplatesOutsideTheSubsetFallBackToTheBuiltInFormat) {
  // from_gguf's fallback: a ChatML template with a macro still renders ChatML.
  const ChatTemplate t = ChatTemplate::from_source("{% macro x() %}{% endmacro %}<|im_start|>");
  EXPECT_FALSE(t.runs_jinja());
  EXPECT_EQ(t.format(), ChatFormat::ChatML);
}

}  // namespace
}  // namespace wgrt::llm
