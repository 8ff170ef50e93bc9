// A JSON-Schema subset as a matcher of text prefixes, for
// `response_format: {"type": "json_schema"}` (OpenAI's structured outputs):
// objects with properties, required and additionalProperties; arrays with
// items, minItems and maxItems; strings with maxLength; integers, numbers,
// booleans and null; enum and const; anyOf/oneOf and several types
// (wgrt/json_schema.h; the server compiles a schema's JSON into one, this
// layer reads no JSON text).
//
// The matcher follows every way the text so far may still be read (anyOf,
// an enum whose values share a start) and dies when none is left. Numbers
// are at most kMaxNumberBytes long (exponents of two digits at most: every
// number is a finite double), whitespace runs at most kMaxWhitespace
// bytes and nesting at most kMaxDepth: a sampler under the schema must end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "wgrt/json_schema.h"

namespace wgrt::llm {

using wgrt::JsonSchema;
using wgrt::JsonSchemaNode;

class JsonSchemaMatcher {
 public:
  static constexpr int kMaxWhitespace = 32;
  static constexpr size_t kMaxDepth = 64;
  static constexpr int kMaxNumberBytes = 24;
  static constexpr int kMaxExponentDigits = 2;  // so that every number is a finite double
  static constexpr size_t kMaxReadings = 16;  // ways to read the text kept at once

  explicit JsonSchemaMatcher(std::shared_ptr<const JsonSchema> schema);
  // False (and the state unchanged) when `bytes` cannot continue the text.
  bool feed(std::string_view bytes);
  // Whether feed(bytes) would succeed, leaving the state as it is.
  bool accepts(std::string_view bytes) const;
  // The text is one whole value of the schema (trailing whitespace allowed).
  bool complete() const;
  // Inside a string whose content nothing constrains but its length: how
  // many more characters fit (-1: any), so that a token of plain characters
  // can be judged without feeding it. False elsewhere.
  bool in_plain_string(int64_t* room) const;

 private:
  enum class Mode : uint8_t { Value, ObjectKeyOrEnd, KeyNext, Colon, AfterValue, ArrayValueOrEnd, String, Escape,
                              Unicode, Number, Literal, Done };
  struct Container {
    int32_t node = 0;
    bool object = true;
    int64_t count = 0;              // array: items so far
    std::vector<bool> seen;         // object: properties given
  };
  struct Reading {
    std::vector<Container> stack;
    Mode mode = Mode::Value;
    int32_t node = 0;               // the value being read (Value, String, Number, Literal)
    bool key = false;               // the string is an object key
    std::string key_text;           // so far
    int32_t value_node = -1;        // after a key: its value's node
    int64_t length = 0;             // string characters or number bytes
    uint8_t number_part = 0;
    uint8_t exponent_digits = 0;
    int unicode_left = 0;
    int whitespace = 0;
    const std::vector<std::string>* literals = nullptr;  // Literal: the node's, or true/false/null
    std::vector<int32_t> candidates;  // Literal: those still matching
  };

  // One byte for one reading: the readings it leaves go to `out`. step
  // dispatches on the mode; each step_* consumes `r` (moves it into `out`
  // or drops it).
  void step(Reading r, char c, std::vector<Reading>& out) const;
  void step_object_open(Reading& r, char c, std::vector<Reading>& out) const;  // ObjectKeyOrEnd, KeyNext
  void step_array_open(Reading& r, char c, std::vector<Reading>& out) const;   // ArrayValueOrEnd
  void step_after_value(Reading& r, char c, std::vector<Reading>& out) const;
  void step_string(Reading& r, char c, std::vector<Reading>& out) const;  // a value's string
  void step_key(Reading& r, char c, std::vector<Reading>& out) const;     // an object key's string
  void end_key(Reading& r, std::vector<Reading>& out) const;
  void step_escape(Reading& r, char c, std::vector<Reading>& out) const;
  void step_number(Reading& r, char c, std::vector<Reading>& out) const;
  void step_literal(Reading& r, char c, std::vector<Reading>& out) const;
  void close_container(Reading& r, std::vector<Reading>& out) const;
  // The readings after `bytes` (empty: none survives).
  std::vector<Reading> advance(std::string_view bytes) const;
  void literal_matched(Reading r, std::vector<Reading>& out) const;
  void start_value(Reading r, int32_t node, char c, std::vector<Reading>& out) const;
  void end_value(Reading& r) const;
  bool more_keys(const Reading& r) const;
  bool keys_done(const Reading& r) const;
  const JsonSchemaNode& node(int32_t i) const { return schema_->nodes[size_t(i)]; }

  std::shared_ptr<const JsonSchema> schema_;
  std::vector<Reading> readings_;
};

}  // namespace wgrt::llm
