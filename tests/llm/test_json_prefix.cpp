// The JSON-object prefix matcher behind response_format json_object
// (llm/json_prefix.h): every prefix of a valid object is accepted and only
// the whole object is complete; what RFC 8259 forbids is refused at the
// byte that makes it invalid, leaving the state as it was.
#include <gtest/gtest.h>

#include <string>

#include "llm/json_prefix.h"

namespace wgrt::llm {
namespace {

// Fed byte by byte: each prefix is accepted; complete only after the last byte.
void expect_object(const std::string& text) {
  SCOPED_TRACE(text);
  JsonObjectPrefix m;
  for (size_t i = 0; i < text.size(); ++i) {
    ASSERT_TRUE(m.feed(text.substr(i, 1))) << "refused byte " << i << " '" << text[i] << "'";
    const bool last_significant = text.find_first_not_of(" \t\r\n", i + 1) == std::string::npos;
    EXPECT_EQ(m.complete(), last_significant) << "after byte " << i;
  }
  JsonObjectPrefix whole;  // and in one piece
  EXPECT_TRUE(whole.feed(text));
  EXPECT_TRUE(whole.complete());
}

// Refused at some byte (fed in one piece: the state stays unchanged).
void expect_refused(const std::string& text) {
  SCOPED_TRACE(text);
  JsonObjectPrefix m;
  EXPECT_FALSE(m.feed(text));
  EXPECT_FALSE(m.complete());
  EXPECT_TRUE(m.feed("{"));  // untouched: still before the object
}

TEST(JsonObjectPrefix, AcceptsObjectsOfEveryKindOfValue) {
  expect_object("{}");
  expect_object(" {\n  \"a\" : 1 }\n");
  expect_object(R"({"s":"x\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00 é","n":[0,-0,12,-3.25,1e5,1E+5,2.5e-3,0.0],"b":[true,false,null]})");
  expect_object(R"({"nested":{"a":[{"b":[[]]},{}],"c":{"d":{}}},"e":[1,[2,[3]]]})");
  expect_object("{\"k\":\"v\",\"k2\":{\"x\":[1,2,3]}}");
}

TEST(JsonObjectPrefix, RefusesWhatTheRfcForbids) {
  for (const char* bad : {"[1]", "1", "\"s\"", "true", "{,}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\" 1}",
                          "{'a':1}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":-}", "{\"a\":.5}", "{\"a\":1e}", "{\"a\":+1}",
                          "{\"a\":tru}", "{\"a\":nul,}", "{\"a\":\"\\x\"}", "{\"a\":\"\\u12g4\"}", "{\"a\":[1,]}",
                          "{\"a\":[1 2]}", "{\"a\":1]", "{\"a\":[}", "{a:1}", "{}{", "{} x", "{\"a\":\"\n\"}"}) {
    expect_refused(bad);
  }
}

TEST(JsonObjectPrefix, NumbersEndAtTheByteAfterThem) {
  JsonObjectPrefix m;
  ASSERT_TRUE(m.feed("{\"a\":12"));
  EXPECT_FALSE(m.complete());
  EXPECT_TRUE(m.feed("}"));
  EXPECT_TRUE(m.complete());
  JsonObjectPrefix dangling;
  ASSERT_TRUE(dangling.feed("{\"a\":1e"));
  EXPECT_FALSE(dangling.feed("}"));  // an exponent needs a digit
  EXPECT_TRUE(dangling.feed("7}"));
}

TEST(JsonObjectPrefix, WhitespaceRunsAndDepthAreBounded) {
  JsonObjectPrefix m;
  ASSERT_TRUE(m.feed("{"));
  EXPECT_TRUE(m.feed(std::string(JsonObjectPrefix::kMaxWhitespace, ' ')));
  EXPECT_FALSE(m.feed(" "));  // one more would let a sampler pad for ever
  EXPECT_TRUE(m.feed("\"a\":\"" + std::string(100, ' ') + "\"}"));  // inside strings, spaces are text
  JsonObjectPrefix deep;
  ASSERT_TRUE(deep.feed("{\"a\":" + std::string(JsonObjectPrefix::kMaxDepth - 1, '[')));
  EXPECT_FALSE(deep.feed("["));
}

}  // namespace
}  // namespace wgrt::llm
