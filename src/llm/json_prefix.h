// Whether text so far can still become a JSON object (RFC 8259), byte by
// byte: the matcher behind `response_format: {"type": "json_object"}`. It
// holds only what the next byte needs (the open containers, where in a
// value it is), so a copy is cheap and trying a token's bytes on a copy
// leaves the original as it was.
//
// Beyond the RFC, for a sampler that must end: runs of whitespace are at
// most kMaxWhitespace bytes and containers nest at most kMaxDepth deep.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace wgrt::llm {

class JsonObjectPrefix {
 public:
  static constexpr int kMaxWhitespace = 32;
  static constexpr size_t kMaxDepth = 64;

  // False (and the state unchanged) when `bytes` cannot continue the text.
  bool feed(std::string_view bytes);
  // Whether feed(bytes) would succeed, leaving the state as it is.
  bool accepts(std::string_view bytes) const {
    JsonObjectPrefix trial = *this;  // a few bytes: the copy is the cheap way
    return trial.feed(bytes);
  }
  // The text is one whole JSON object (trailing whitespace allowed).
  bool complete() const { return mode_ == Mode::Done; }
  // Inside a string value, where any plain character may come (room: -1, no limit).
  bool in_plain_string(int64_t* room) const {
    *room = -1;
    return mode_ == Mode::String && !key_;
  }

 private:
  enum class Mode : uint8_t {
    Top,          // before the object: whitespace or '{'
    ObjectOpen,   // after '{': '"' or '}'
    KeyNext,      // after ',' in an object: '"'
    Colon,        // after a key: ':'
    Value,        // a value must start
    ArrayOpen,    // after '[': a value or ']'
    AfterValue,   // after a value in a container: ',' or its closing bracket
    String,       // inside a string (key or value)
    Escape,       // after a backslash
    Unicode,      // in \uXXXX, unicode_left_ hex digits to go
    Number,       // inside a number (number_ says where)
    Literal,      // inside true, false or null
    Done,         // the object is closed: whitespace only
  };
  // Where in a number: after '-', after a leading 0, in the integer digits,
  // after '.', in the fraction, after 'e', after the exponent's sign, in its digits.
  enum class NumberPart : uint8_t { Minus, Zero, Int, Dot, Frac, Exp, ExpSign, ExpDigits };

  // One byte: false when it cannot continue the text. step dispatches on
  // the mode to the step_* of the longer ones.
  bool step(char c);
  bool step_value(char c);  // Value, ArrayOpen
  bool step_after_value(char c);
  bool step_string(char c);
  bool step_escape(char c);
  bool step_number(char c);
  bool open(char bracket, Mode next);  // a container starts
  bool close();                        // the innermost container ends
  bool end_value();  // a value just ended: where the text goes next
  bool number_can_end() const;

  std::array<char, kMaxDepth> stack_{};  // '{' or '[' per open container (a copy is a few bytes)
  uint8_t depth_ = 0;
  Mode mode_ = Mode::Top;
  bool key_ = false;          // the string being read is an object key
  NumberPart number_ = NumberPart::Int;
  const char* literal_ = nullptr;  // the rest of true/false/null to match
  int unicode_left_ = 0;
  int whitespace_ = 0;        // whitespace bytes in a row
};

}  // namespace wgrt::llm
