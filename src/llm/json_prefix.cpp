#include "llm/json_prefix.h"

namespace wgrt::llm {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

}  // namespace

bool JsonObjectPrefix::feed(std::string_view bytes) {
  JsonObjectPrefix next = *this;
  for (char c : bytes) {
    if (!next.step(c)) return false;
  }
  *this = next;
  return true;
}

bool JsonObjectPrefix::end_value() {
  mode_ = depth_ == 0 ? Mode::Done : Mode::AfterValue;
  return true;
}

bool JsonObjectPrefix::number_can_end() const {
  return number_ == NumberPart::Zero || number_ == NumberPart::Int || number_ == NumberPart::Frac ||
         number_ == NumberPart::ExpDigits;
}

bool JsonObjectPrefix::open(char bracket, Mode next) {
  if (depth_ == kMaxDepth) return false;
  stack_[depth_++] = bracket;
  mode_ = next;
  return true;
}

bool JsonObjectPrefix::close() {
  --depth_;
  return end_value();
}

bool JsonObjectPrefix::step_value(char c) {
  if (c == ']' && mode_ == Mode::ArrayOpen) return close();
  switch (c) {
    case '{': return open('{', Mode::ObjectOpen);
    case '[': return open('[', Mode::ArrayOpen);
    case '"': key_ = false; mode_ = Mode::String; return true;
    case '-': mode_ = Mode::Number; number_ = NumberPart::Minus; return true;
    case 't': mode_ = Mode::Literal; literal_ = "rue"; return true;
    case 'f': mode_ = Mode::Literal; literal_ = "alse"; return true;
    case 'n': mode_ = Mode::Literal; literal_ = "ull"; return true;
    default:
      if (!is_digit(c)) return false;
      mode_ = Mode::Number;
      number_ = c == '0' ? NumberPart::Zero : NumberPart::Int;
      return true;
  }
}

bool JsonObjectPrefix::step_after_value(char c) {
  const char top = stack_[depth_ - 1];
  if (c == ',') {
    mode_ = top == '{' ? Mode::KeyNext : Mode::Value;
    return true;
  }
  if ((c == '}' && top == '{') || (c == ']' && top == '[')) return close();
  return false;
}

bool JsonObjectPrefix::step_string(char c) {
  if (c == '"') {
    if (!key_) return end_value();
    key_ = false;
    mode_ = Mode::Colon;
    return true;
  }
  if (c == '\\') {
    mode_ = Mode::Escape;
    return true;
  }
  return static_cast<unsigned char>(c) >= 0x20;  // control characters must be escaped
}

bool JsonObjectPrefix::step_escape(char c) {
  if (c == 'u') {
    mode_ = Mode::Unicode;
    unicode_left_ = 4;
    return true;
  }
  if (std::string_view("\"\\/bfnrt").find(c) == std::string_view::npos) return false;
  mode_ = Mode::String;
  return true;
}

bool JsonObjectPrefix::step_number(char c) {
  const bool digit = is_digit(c), exp = c == 'e' || c == 'E';
  switch (number_) {
    case NumberPart::Minus:
      if (!digit) return false;
      number_ = c == '0' ? NumberPart::Zero : NumberPart::Int;
      return true;
    case NumberPart::Zero:
    case NumberPart::Int:
      if (digit && number_ == NumberPart::Int) return true;
      if (c == '.') { number_ = NumberPart::Dot; return true; }
      if (exp) { number_ = NumberPart::Exp; return true; }
      break;
    case NumberPart::Dot:
      if (!digit) return false;
      number_ = NumberPart::Frac;
      return true;
    case NumberPart::Frac:
      if (digit) return true;
      if (exp) { number_ = NumberPart::Exp; return true; }
      break;
    case NumberPart::Exp:
      if (c == '+' || c == '-') { number_ = NumberPart::ExpSign; return true; }
      [[fallthrough]];
    case NumberPart::ExpSign:
      if (!digit) return false;
      number_ = NumberPart::ExpDigits;
      return true;
    case NumberPart::ExpDigits:
      if (digit) return true;
      break;
  }
  // The byte ends the number (which must be whole) and is read after it.
  if (!number_can_end()) return false;
  end_value();
  return step(c);
}

bool JsonObjectPrefix::step(char c) {
  const bool between_tokens = mode_ == Mode::Top || mode_ == Mode::ObjectOpen || mode_ == Mode::KeyNext ||
                              mode_ == Mode::Colon || mode_ == Mode::Value || mode_ == Mode::ArrayOpen ||
                              mode_ == Mode::AfterValue || mode_ == Mode::Done;
  if (between_tokens && is_space(c)) return ++whitespace_ <= kMaxWhitespace;
  whitespace_ = 0;
  switch (mode_) {
    case Mode::Top:
      return c == '{' && open('{', Mode::ObjectOpen);
    case Mode::ObjectOpen:
    case Mode::KeyNext:
      if (c == '"') {
        key_ = true;
        mode_ = Mode::String;
        return true;
      }
      return c == '}' && mode_ == Mode::ObjectOpen && close();
    case Mode::Colon:
      if (c != ':') return false;
      mode_ = Mode::Value;
      return true;
    case Mode::Value:
    case Mode::ArrayOpen:
      return step_value(c);
    case Mode::AfterValue:
      return step_after_value(c);
    case Mode::String:
      return step_string(c);
    case Mode::Escape:
      return step_escape(c);
    case Mode::Unicode:
      if (!is_hex(c)) return false;
      if (--unicode_left_ == 0) mode_ = Mode::String;
      return true;
    case Mode::Number:
      return step_number(c);
    case Mode::Literal:
      if (c != *literal_) return false;
      if (*++literal_ == '\0') return end_value();
      return true;
    case Mode::Done:
      return false;
  }
  return false;
}

}  // namespace wgrt::llm
