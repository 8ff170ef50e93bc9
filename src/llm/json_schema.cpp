#include "llm/json_schema.h"

#include <algorithm>
#include <utility>

namespace wgrt::llm {
namespace {

using Type = JsonSchemaNode::Type;

// Where in a number (Reading::number_part).
enum NumberPart : uint8_t { kMinus, kZero, kInt, kDot, kFrac, kExp, kExpSign, kExpDigits };

const std::vector<std::string> kBooleans = {"true", "false"};
const std::vector<std::string> kNull = {"null"};
const std::vector<std::string> kAnyLiterals = {"true", "false", "null"};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool starts(const std::string& name, const std::string& prefix) { return name.compare(0, prefix.size(), prefix) == 0; }

// What a byte does to a number: continues it, ends it (and is read after it), or cannot follow.
enum class NumberByte : uint8_t { Continues, Ends, Refused };

bool number_can_end(uint8_t part) { return part == kZero || part == kInt || part == kFrac || part == kExpDigits; }

// Moves `part` (and the exponent's digit count) on by one byte of a number.
NumberByte number_byte(uint8_t& part, uint8_t& exponent_digits, char c, bool integer) {
  const bool digit = is_digit(c), exp = c == 'e' || c == 'E';
  switch (part) {
    case kMinus:
      if (!digit) return NumberByte::Refused;
      part = c == '0' ? kZero : kInt;
      return NumberByte::Continues;
    case kZero:
    case kInt:
      if (digit && part == kInt) return NumberByte::Continues;
      if (integer || (c != '.' && !exp)) return NumberByte::Ends;
      part = c == '.' ? kDot : kExp;
      return NumberByte::Continues;
    case kDot:
      if (!digit) return NumberByte::Refused;
      part = kFrac;
      return NumberByte::Continues;
    case kFrac:
      if (digit) return NumberByte::Continues;
      if (!exp) return NumberByte::Ends;
      part = kExp;
      return NumberByte::Continues;
    case kExp:
      if (c == '+' || c == '-') {
        part = kExpSign;
        return NumberByte::Continues;
      }
      [[fallthrough]];
    case kExpSign:
      if (!digit) return NumberByte::Refused;
      part = kExpDigits;
      exponent_digits = 1;
      return NumberByte::Continues;
    case kExpDigits:
      if (!digit) return NumberByte::Ends;
      return ++exponent_digits > JsonSchemaMatcher::kMaxExponentDigits ? NumberByte::Refused : NumberByte::Continues;
  }
  return NumberByte::Refused;
}

}  // namespace

JsonSchemaMatcher::JsonSchemaMatcher(std::shared_ptr<const JsonSchema> schema) : schema_(std::move(schema)) {
  readings_.emplace_back();  // a value of node 0
}

std::vector<JsonSchemaMatcher::Reading> JsonSchemaMatcher::advance(std::string_view bytes) const {
  std::vector<Reading> current, next;
  for (size_t i = 0; i < bytes.size(); ++i) {
    next.clear();
    for (const Reading& r : i == 0 ? readings_ : current) step(r, bytes[i], next);
    if (next.empty()) return {};
    if (next.size() > kMaxReadings) next.resize(kMaxReadings);
    std::swap(current, next);
  }
  return bytes.empty() ? readings_ : current;
}

bool JsonSchemaMatcher::feed(std::string_view bytes) {
  std::vector<Reading> next = advance(bytes);
  if (next.empty()) return false;
  readings_ = std::move(next);
  return true;
}

bool JsonSchemaMatcher::accepts(std::string_view bytes) const { return !advance(bytes).empty(); }

bool JsonSchemaMatcher::complete() const {
  return std::any_of(readings_.begin(), readings_.end(), [](const Reading& r) { return r.mode == Mode::Done; });
}

bool JsonSchemaMatcher::in_plain_string(int64_t* room) const {
  if (readings_.size() != 1) return false;
  const Reading& r = readings_[0];
  if (r.mode != Mode::String || r.key) return false;
  const JsonSchemaNode& s = node(r.node);
  *room = s.type == Type::String && s.max_length >= 0 ? s.max_length - r.length : -1;
  return true;
}

void JsonSchemaMatcher::end_value(Reading& r) const {
  if (r.stack.empty()) {
    r.mode = Mode::Done;
    return;
  }
  if (!r.stack.back().object) ++r.stack.back().count;
  r.mode = Mode::AfterValue;
}

bool JsonSchemaMatcher::more_keys(const Reading& r) const {
  const Container& k = r.stack.back();
  const JsonSchemaNode& s = node(k.node);
  return s.type == Type::Any || s.additional >= 0 || std::find(k.seen.begin(), k.seen.end(), false) != k.seen.end();
}

bool JsonSchemaMatcher::keys_done(const Reading& r) const {
  const Container& k = r.stack.back();
  const JsonSchemaNode& s = node(k.node);
  if (s.type == Type::Any) return true;
  for (size_t i = 0; i < s.required.size(); ++i) {
    if (s.required[i] && !k.seen[i]) return false;
  }
  return true;
}

void JsonSchemaMatcher::literal_matched(Reading r, std::vector<Reading>& out) const {
  std::vector<int32_t> longer;
  bool whole = false;
  for (int32_t i : r.candidates) {
    if ((*r.literals)[size_t(i)].size() == size_t(r.length)) {
      whole = true;
    } else {
      longer.push_back(i);
    }
  }
  if (whole) {  // one reading where the value ended here
    Reading ended = r;
    ended.candidates.clear();
    end_value(ended);
    out.push_back(std::move(ended));
  }
  if (!longer.empty()) {
    r.candidates = std::move(longer);
    out.push_back(std::move(r));
  }
}

void JsonSchemaMatcher::start_value(Reading r, int32_t n, char c, std::vector<Reading>& out) const {
  const JsonSchemaNode& s = node(n);
  auto literal = [&](const std::vector<std::string>& set) {
    r.mode = Mode::Literal;
    r.node = n;
    r.literals = &set;
    r.length = 1;
    r.candidates.clear();
    for (size_t i = 0; i < set.size(); ++i) {
      if (!set[i].empty() && set[i][0] == c) r.candidates.push_back(int32_t(i));
    }
    if (!r.candidates.empty()) literal_matched(std::move(r), out);
  };
  auto open = [&](bool object) {
    if (r.stack.size() == kMaxDepth) return;
    r.stack.push_back({n, object, 0, std::vector<bool>(object ? s.property_names.size() : 0, false)});
    r.mode = object ? Mode::ObjectKeyOrEnd : Mode::ArrayValueOrEnd;
    out.push_back(std::move(r));
  };
  const bool any = s.type == Type::Any;
  switch (s.type) {
    case Type::AnyOf:
      for (int32_t o : s.options) start_value(r, o, c, out);
      return;
    case Type::Literals:
      literal(s.literals);
      return;
    case Type::Boolean:
      literal(kBooleans);
      return;
    case Type::Null:
      literal(kNull);
      return;
    default:
      break;
  }
  if (c == '{' && (any || s.type == Type::Object)) return open(true);
  if (c == '[' && (any || s.type == Type::Array)) return open(false);
  if (c == '"' && (any || s.type == Type::String)) {
    r.mode = Mode::String;
    r.node = n;
    r.key = false;
    r.length = 0;
    out.push_back(std::move(r));
    return;
  }
  if ((c == '-' || is_digit(c)) && (any || s.type == Type::Number || s.type == Type::Integer)) {
    r.mode = Mode::Number;
    r.node = n;
    r.number_part = c == '-' ? kMinus : c == '0' ? kZero : kInt;
    r.length = 1;
    out.push_back(std::move(r));
    return;
  }
  if (any) literal(kAnyLiterals);
}

void JsonSchemaMatcher::close_container(Reading& r, std::vector<Reading>& out) const {
  r.stack.pop_back();
  end_value(r);
  out.push_back(std::move(r));
}

void JsonSchemaMatcher::step_object_open(Reading& r, char c, std::vector<Reading>& out) const {
  if (c == '"') {
    r.mode = Mode::String;
    r.key = true;
    r.key_text.clear();
    out.push_back(std::move(r));
  } else if (c == '}' && r.mode == Mode::ObjectKeyOrEnd && keys_done(r)) {
    close_container(r, out);
  }
}

void JsonSchemaMatcher::step_array_open(Reading& r, char c, std::vector<Reading>& out) const {
  const JsonSchemaNode& s = node(r.stack.back().node);
  const bool any = s.type == Type::Any;
  if (c == ']') {
    if (any || s.min_items == 0) close_container(r, out);
    return;
  }
  if (!any && s.max_items == 0) return;
  const int32_t item = any ? r.stack.back().node : s.items;
  start_value(std::move(r), item, c, out);
}

void JsonSchemaMatcher::step_after_value(Reading& r, char c, std::vector<Reading>& out) const {
  const Container& k = r.stack.back();
  const JsonSchemaNode& s = node(k.node);
  const bool any = s.type == Type::Any;
  if (k.object) {
    if (c == ',' && more_keys(r)) {
      r.mode = Mode::KeyNext;
      out.push_back(std::move(r));
    } else if (c == '}' && keys_done(r)) {
      close_container(r, out);
    }
    return;
  }
  if (c == ',' && (any || s.max_items < 0 || k.count < s.max_items)) {
    r.mode = Mode::Value;
    r.node = any ? k.node : s.items;
    out.push_back(std::move(r));
  } else if (c == ']' && (any || k.count >= s.min_items)) {
    close_container(r, out);
  }
}

void JsonSchemaMatcher::step_string(Reading& r, char c, std::vector<Reading>& out) const {
  if (c == '"') {
    end_value(r);
  } else if (c == '\\' || (static_cast<unsigned char>(c) & 0xC0) != 0x80) {
    // A character starts (UTF-8), or an escape that makes one: counted
    // here, so that a string at its longest can only close.
    const JsonSchemaNode& s = node(r.node);
    if (s.type == Type::String && s.max_length >= 0 && ++r.length > s.max_length) return;
    if (c == '\\') r.mode = Mode::Escape;
  }
  out.push_back(std::move(r));
}

// An object key: one of the properties not given yet, or any when other keys are allowed.
void JsonSchemaMatcher::step_key(Reading& r, char c, std::vector<Reading>& out) const {
  const Container& k = r.stack.back();
  const JsonSchemaNode& s = node(k.node);
  const bool open_keys = s.type == Type::Any || s.additional >= 0;
  if (c == '"') return end_key(r, out);
  if (c == '\\') {  // escapes only where any key is allowed: they never spell a property name here
    if (!open_keys) return;
    r.mode = Mode::Escape;
    out.push_back(std::move(r));
    return;
  }
  r.key_text += c;
  if (!open_keys) {
    bool prefix = false;
    for (size_t i = 0; i < s.property_names.size() && !prefix; ++i) {
      prefix = !k.seen[i] && starts(s.property_names[i], r.key_text);
    }
    if (!prefix) return;
  }
  out.push_back(std::move(r));
}

// The key's closing quote: a property not given yet, or another key where they are allowed.
void JsonSchemaMatcher::end_key(Reading& r, std::vector<Reading>& out) const {
  const Container& k = r.stack.back();
  const JsonSchemaNode& s = node(k.node);
  const auto it = std::find(s.property_names.begin(), s.property_names.end(), r.key_text);
  const size_t i = size_t(it - s.property_names.begin());
  if (it != s.property_names.end()) {
    if (k.seen[i]) return;  // a key given twice
    r.stack.back().seen[i] = true;
    r.value_node = s.property_nodes[i];
  } else if (s.type == Type::Any || s.additional >= 0) {
    r.value_node = s.type == Type::Any ? k.node : s.additional;
  } else {
    return;
  }
  r.key = false;
  r.mode = Mode::Colon;
  out.push_back(std::move(r));
}

void JsonSchemaMatcher::step_escape(Reading& r, char c, std::vector<Reading>& out) const {
  if (c == 'u') {
    r.mode = Mode::Unicode;
    r.unicode_left = 4;
  } else if (std::string_view("\"\\/bfnrt").find(c) != std::string_view::npos) {
    r.mode = Mode::String;
  } else {
    return;
  }
  out.push_back(std::move(r));
}

void JsonSchemaMatcher::step_number(Reading& r, char c, std::vector<Reading>& out) const {
  const NumberByte read = number_byte(r.number_part, r.exponent_digits, c, node(r.node).type == Type::Integer);
  if (read == NumberByte::Refused) return;
  if (read == NumberByte::Continues) {
    // Within the length, and with room to finish a part that cannot end the number.
    if (++r.length < kMaxNumberBytes || (r.length == kMaxNumberBytes && number_can_end(r.number_part))) {
      out.push_back(std::move(r));
    }
    return;
  }
  // The byte ends the number (which must be whole) and is read after it.
  if (!number_can_end(r.number_part)) return;
  end_value(r);
  step(std::move(r), c, out);
}

void JsonSchemaMatcher::step_literal(Reading& r, char c, std::vector<Reading>& out) const {
  std::vector<int32_t> still;
  for (int32_t i : r.candidates) {
    const std::string& text = (*r.literals)[size_t(i)];
    if (size_t(r.length) < text.size() && text[size_t(r.length)] == c) still.push_back(i);
  }
  if (still.empty()) return;
  r.candidates = std::move(still);
  ++r.length;
  literal_matched(std::move(r), out);
}

// One byte of text for one reading: each reading it leaves goes to `out`
// (none: this reading dies here; several: a literal or anyOf branches).
void JsonSchemaMatcher::step(Reading r, char c, std::vector<Reading>& out) const {
  const bool between = r.mode == Mode::Value || r.mode == Mode::ObjectKeyOrEnd || r.mode == Mode::KeyNext ||
                       r.mode == Mode::Colon || r.mode == Mode::AfterValue || r.mode == Mode::ArrayValueOrEnd ||
                       r.mode == Mode::Done;
  if (between && is_space(c)) {
    if (++r.whitespace <= kMaxWhitespace) out.push_back(std::move(r));
    return;
  }
  r.whitespace = 0;
  switch (r.mode) {
    case Mode::Value: {
      const int32_t n = r.node;
      return start_value(std::move(r), n, c, out);
    }
    case Mode::ObjectKeyOrEnd:
    case Mode::KeyNext:
      return step_object_open(r, c, out);
    case Mode::Colon:
      if (c != ':') return;
      r.mode = Mode::Value;
      r.node = r.value_node;
      out.push_back(std::move(r));
      return;
    case Mode::ArrayValueOrEnd:
      return step_array_open(r, c, out);
    case Mode::AfterValue:
      return step_after_value(r, c, out);
    case Mode::String:
      if (static_cast<unsigned char>(c) < 0x20) return;  // control characters must be escaped
      return r.key ? step_key(r, c, out) : step_string(r, c, out);
    case Mode::Escape:
      return step_escape(r, c, out);
    case Mode::Unicode:
      if (!is_hex(c)) return;
      if (--r.unicode_left == 0) r.mode = Mode::String;
      out.push_back(std::move(r));
      return;
    case Mode::Number:
      return step_number(r, c, out);
    case Mode::Literal:
      return step_literal(r, c, out);
    case Mode::Done:
      return;
  }
}

}  // namespace wgrt::llm
