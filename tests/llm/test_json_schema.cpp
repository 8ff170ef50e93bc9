// The schema matcher behind response_format json_schema (llm/json_schema.h):
// texts valid under a schema are accepted byte by byte and complete only at
// their end; what the schema forbids is refused at the byte that breaks it.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "llm/json_schema.h"

namespace wgrt::llm {
namespace {

using Type = JsonSchemaNode::Type;

// {"color": "red"|"green", "n": integer, "ok": boolean, "tags": [string <= 5] (<= 3),
//  "name": string <= 8, "score": number or null}; all but score required; no other key.
std::shared_ptr<const JsonSchema> record_schema() {
  JsonSchema s;
  s.nodes.resize(10);
  auto& root = s.nodes[0];
  root.type = Type::Object;
  root.property_names = {"color", "n", "ok", "tags", "name", "score"};
  root.property_nodes = {1, 2, 3, 4, 6, 7};
  root.required = {true, true, true, true, true, false};
  s.nodes[1].type = Type::Literals;
  s.nodes[1].literals = {"\"red\"", "\"green\""};
  s.nodes[2].type = Type::Integer;
  s.nodes[3].type = Type::Boolean;
  s.nodes[4].type = Type::Array;
  s.nodes[4].items = 5;
  s.nodes[4].max_items = 3;
  s.nodes[5].type = Type::String;
  s.nodes[5].max_length = 5;
  s.nodes[6].type = Type::String;
  s.nodes[6].max_length = 8;
  s.nodes[7].type = Type::AnyOf;
  s.nodes[7].options = {8, 9};
  s.nodes[8].type = Type::Number;
  s.nodes[9].type = Type::Null;
  return std::make_shared<const JsonSchema>(std::move(s));
}

void expect_valid(const std::string& text) {
  SCOPED_TRACE(text);
  JsonSchemaMatcher m(record_schema());
  for (size_t i = 0; i < text.size(); ++i) {
    ASSERT_TRUE(m.feed(text.substr(i, 1))) << "refused byte " << i << " '" << text[i] << "'";
    EXPECT_EQ(m.complete(), text.find_first_not_of(" \n", i + 1) == std::string::npos) << "after byte " << i;
  }
}

void expect_invalid(const std::string& text) {
  SCOPED_TRACE(text);
  JsonSchemaMatcher m(record_schema());
  EXPECT_FALSE(m.feed(text) && m.complete());
}

TEST(JsonSchemaMatcher, AcceptsValuesOfTheSchemaInAnyKeyOrder) {
  expect_valid(R"({"color":"red","n":-12,"ok":true,"tags":[],"name":"Tom"})");
  expect_valid("{ \"name\" : \"Tomasz\", \"tags\": [\"a\", \"bcdef\"], \"ok\": false, \"n\": 0, \"color\": \"green\", "
               "\"score\": 2.5e3 }\n");
  expect_valid(R"({"score":null,"color":"green","n":7,"ok":true,"tags":["x","y","z"],"name":""})");
  expect_valid(R"({"color":"red","n":1,"ok":true,"tags":[],"name":"hnhntiF?"})");
}

TEST(JsonSchemaMatcher, RefusesWhatTheSchemaForbids) {
  for (const char* bad : {
           R"({"color":"blue","n":1,"ok":true,"tags":[],"name":""})",           // not in the enum
           R"({"color":"red","n":1.5,"ok":true,"tags":[],"name":""})",          // not an integer
           R"({"color":"red","n":1,"ok":1,"tags":[],"name":""})",               // not a boolean
           R"({"color":"red","n":1,"ok":true,"tags":["abcdef"],"name":""})",    // longer than maxLength
           R"({"color":"red","n":1,"ok":true,"tags":["a","b","c","d"],"name":""})",  // more than maxItems
           R"({"color":"red","n":1,"ok":true,"tags":[],"name":"","x":1})",      // no other key
           R"({"color":"red","n":1,"ok":true,"tags":[]})",                      // a required key missing
           R"({"color":"red","color":"red","n":1,"ok":true,"tags":[],"name":""})",  // a key twice
           R"({"color":"red","n":1,"ok":true,"tags":[],"name":"","score":"x"})",    // neither number nor null
           R"(["red"])",                                                        // not an object
       }) {
    expect_invalid(bad);
  }
}

TEST(JsonSchemaMatcher, StringsAtTheirLongestTakeOnlyTheirEnd) {
  JsonSchemaMatcher m(record_schema());
  ASSERT_TRUE(m.feed(R"({"color":"red","tags":[],"name":"hnhntiF?)"));
  int64_t room = -1;
  ASSERT_TRUE(m.in_plain_string(&room));
  EXPECT_EQ(room, 0);
  JsonSchemaMatcher more = m;
  EXPECT_FALSE(more.feed("x"));
  EXPECT_TRUE(m.feed("\""));
  EXPECT_TRUE(m.feed(",\"n\":3,\"ok\":false}"));
  EXPECT_TRUE(m.complete());
  // An escape is one more character: refused at its backslash when none fits
  // (a backslash accepted there would leave nothing to follow it).
  JsonSchemaMatcher full(record_schema());
  ASSERT_TRUE(full.feed(R"({"name":"hnhntiF?)"));
  EXPECT_FALSE(full.feed("\\"));
  EXPECT_TRUE(full.feed("\""));
}

// Every accepted prefix can still be finished: numbers stop taking bytes
// at their longest only where they can end.
TEST(JsonSchemaMatcher, NumbersAtTheirLongestCanStillEnd) {
  JsonSchemaMatcher m(record_schema());
  ASSERT_TRUE(m.feed(R"({"n":1)" + std::string(JsonSchemaMatcher::kMaxNumberBytes - 2, '0')));
  JsonSchemaMatcher exp = m;
  EXPECT_FALSE(exp.feed("0e"));  // the exponent's digit would not fit
  EXPECT_TRUE(m.feed("0"));
  EXPECT_FALSE(m.feed("0"));
  EXPECT_TRUE(m.feed(","));
}

}  // namespace
}  // namespace wgrt::llm
