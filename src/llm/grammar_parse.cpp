// parse_gbnf: GBNF text into Grammar rules (llm/grammar.h).
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "llm/grammar.h"
#include "llm/tokenizer/unicode.h"
#include "wgrt/error.h"

namespace wgrt {

bool GrammarElement::matches(uint32_t c) const {
  bool in = false;
  for (const auto& [lo, hi] : ranges) in = in || (c >= lo && c <= hi);
  return in != negate;
}

namespace llm {
namespace {

constexpr int kMaxRepeat = 1000;  // {m,n} bounds (each copy is an element)
// Bounds that keep the parser's and the matcher's recursion shallow
// whatever the text: groups inside groups, and rules (named and made).
constexpr int kMaxNesting = 64;
constexpr size_t kMaxRules = 4096;
constexpr uint32_t kMaxCodePoint = 0x10FFFF;

using Elements = std::vector<GrammarElement>;

class GbnfParser {
 public:
  explicit GbnfParser(std::string_view text) : text_(text) {}

  std::shared_ptr<const Grammar> parse() {
    skip(true);
    while (!eof()) {
      const size_t at = pos_;
      const std::string name = read_name();
      if (name.empty()) fail(at, "expected a rule name");
      skip(true);
      if (text_.substr(pos_, 3) != "::=") fail(pos_, "expected '::=' after the rule name '" + name + "'");
      pos_ += 3;
      const int32_t id = rule_id(name, at);
      if (defined_[size_t(id)]) fail(at, "rule '" + name + "' is defined twice");
      defined_[size_t(id)] = true;
      g_->rules[size_t(id)] = read_alternatives(false);
      skip(true);
    }
    const auto root = ids_.find("root");
    if (root == ids_.end() || !defined_[size_t(root->second)]) fail(text_.size(), "no 'root' rule");
    g_->root = root->second;
    for (size_t i = 0; i < defined_.size(); ++i) {
      if (!defined_[i]) fail(first_use_[i], "rule '" + g_->names[i] + "' is used but not defined");
    }
    refuse_left_recursion();
    return g_;
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& what) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw Error(ErrorCode::InvalidArgument,
                "grammar: line " + std::to_string(line) + ", column " + std::to_string(col) + ": " + what);
  }

  bool eof() const { return pos_ >= text_.size(); }
  char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  static bool name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  }

  // Spaces, tabs and comments; newlines too when `newlines`.
  void skip(bool newlines) {
    while (!eof()) {
      const char c = peek();
      if (c == '#') {
        while (!eof() && peek() != '\n') ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || (newlines && c == '\n')) {
        ++pos_;
      } else {
        break;
      }
    }
  }

  std::string read_name() {
    const size_t start = pos_;
    while (!eof() && name_char(peek())) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  // Whether the text from here is `name ::=` (the next rule starts).
  bool at_rule_start() const {
    size_t p = pos_;
    while (p < text_.size() && name_char(text_[p])) ++p;
    if (p == pos_) return false;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t' || text_[p] == '\r' || text_[p] == '\n')) ++p;
    return text_.substr(p, 3) == "::=";
  }

  int32_t rule_id(const std::string& name, size_t at) {
    const auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;
    return new_rule(name, at);
  }

  int32_t new_rule(const std::string& name, size_t at) {
    if (g_->rules.size() >= kMaxRules) fail(at, "more than " + std::to_string(kMaxRules) + " rules (groups and repetitions count)");
    const auto id = int32_t(g_->rules.size());
    g_->names.push_back(name);
    g_->rules.emplace_back();
    defined_.push_back(name.empty());
    first_use_.push_back(at);
    if (!name.empty()) ids_[name] = id;
    return id;
  }

  int32_t made_rule(std::vector<Grammar::Alternative> alts) {
    const int32_t id = new_rule("", pos_);
    g_->rules[size_t(id)] = std::move(alts);
    return id;
  }

  static GrammarElement ref(int32_t rule) {
    GrammarElement e;
    e.rule = rule;
    return e;
  }

  std::vector<Grammar::Alternative> read_alternatives(bool nested) {
    std::vector<Grammar::Alternative> alts;
    for (;;) {
      alts.push_back(read_sequence(nested));
      skip(true);
      if (peek() != '|') break;
      ++pos_;
    }
    return alts;
  }

  Elements read_sequence(bool nested) {
    Elements seq;
    for (;;) {
      // Inside a group a sequence may span lines; at the top it ends where
      // the next rule starts.
      skip(true);
      if (eof() || peek() == '|' || peek() == ')') break;
      if (!nested && at_rule_start()) break;
      Elements atom = read_atom();
      read_repetition(atom);
      seq.insert(seq.end(), atom.begin(), atom.end());
    }
    return seq;
  }

  Elements read_atom() {
    const size_t at = pos_;
    const char c = peek();
    if (c == '"') {
      ++pos_;
      Elements chars;
      while (peek() != '"') {
        if (eof()) fail(at, "unterminated string literal");
        GrammarElement e;
        const uint32_t cp = read_char();
        e.ranges.push_back({cp, cp});
        chars.push_back(std::move(e));
      }
      ++pos_;
      return chars;
    }
    if (c == '[') return {read_class()};
    if (c == '.') {
      ++pos_;
      GrammarElement any;
      any.ranges.push_back({0, kMaxCodePoint});
      return {any};
    }
    if (c == '(') {
      ++pos_;
      if (++nesting_ > kMaxNesting) fail(at, "groups nest deeper than " + std::to_string(kMaxNesting));
      std::vector<Grammar::Alternative> alts = read_alternatives(true);
      if (peek() != ')') fail(at, "expected ')' to close the group");
      ++pos_;
      --nesting_;
      return {ref(made_rule(std::move(alts)))};
    }
    const std::string name = read_name();
    if (name.empty()) fail(at, std::string("unexpected '") + c + "'");
    return {ref(rule_id(name, at))};
  }

  GrammarElement read_class() {
    const size_t at = pos_;
    ++pos_;  // '['
    GrammarElement e;
    if (peek() == '^') {
      e.negate = true;
      ++pos_;
    }
    while (peek() != ']') {
      if (eof()) fail(at, "unterminated character class");
      const uint32_t lo = read_char();
      uint32_t hi = lo;
      if (peek() == '-' && peek(1) != ']' && pos_ + 1 < text_.size()) {
        ++pos_;
        hi = read_char();
        if (hi < lo) fail(at, "a character range runs backwards");
      }
      e.ranges.push_back({lo, hi});
    }
    ++pos_;
    return e;
  }

  // One character of a literal or class: an escape or one UTF-8 character.
  uint32_t read_char() {
    const size_t at = pos_;
    const auto c = static_cast<unsigned char>(text_[pos_++]);
    if (c == '\\') {
      if (eof()) fail(at, "an escape at the end of the text");
      const char e = text_[pos_++];
      switch (e) {
        case 'n': return '\n';
        case 'r': return '\r';
        case 't': return '\t';
        case '\\': case '"': case '\'': case '[': case ']': case '-': case '^': return uint32_t(e);
        case 'x': return read_hex(2, at);
        case 'u': return read_hex(4, at);
        case 'U': return read_hex(8, at);
        default: fail(at, std::string("unknown escape '\\") + e + "'");
      }
    }
    if (c < 0x80) return c;
    const Utf8Char ch = decode_utf8(text_, at);
    if (ch.cp == kInvalidCodepoint) fail(at, "invalid UTF-8");
    pos_ = at + ch.size;
    return ch.cp;
  }

  uint32_t read_hex(int digits, size_t at) {
    uint32_t v = 0;
    for (int i = 0; i < digits; ++i) {
      const char h = peek();
      const int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
      if (d < 0) fail(at, "expected " + std::to_string(digits) + " hex digits in the escape");
      v = v * 16 + uint32_t(d);
      ++pos_;
    }
    if (v > kMaxCodePoint) fail(at, "the escape is above U+10FFFF");
    return v;
  }

  int read_count() {
    const size_t at = pos_;
    int v = 0;
    if (!(peek() >= '0' && peek() <= '9')) fail(at, "expected a number in the repetition");
    while (peek() >= '0' && peek() <= '9') {
      v = v * 10 + (peek() - '0');
      ++pos_;
      if (v > kMaxRepeat) fail(at, "a repetition bound above " + std::to_string(kMaxRepeat));
    }
    return v;
  }

  // A postfix * + ? or {m,n} on `atom` (a literal of several characters
  // repeats whole).
  void read_repetition(Elements& atom) {
    const char c = peek();
    if (c != '*' && c != '+' && c != '?' && c != '{') return;
    const size_t at = pos_;
    ++pos_;
    if (atom.size() != 1) atom = {ref(made_rule({atom}))};
    const GrammarElement e = atom[0];
    int lo = 0, hi = -1;  // hi -1: no most
    if (c == '+') lo = 1;
    if (c == '?') hi = 1;
    if (c == '{') {
      skip(false);
      lo = read_count();
      skip(false);
      hi = lo;
      if (peek() == ',') {
        ++pos_;
        skip(false);
        hi = peek() == '}' ? -1 : read_count();
        skip(false);
      }
      if (peek() != '}') fail(at, "expected '}' to close the repetition");
      ++pos_;
      if (hi >= 0 && hi < lo) fail(at, "a repetition's most is below its least");
    }
    atom.assign(size_t(lo), e);
    if (hi < 0) {
      // star ::= e star | (empty)
      const int32_t star = made_rule({});
      g_->rules[size_t(star)] = {{e, ref(star)}, {}};
      atom.push_back(ref(star));
      return;
    }
    // Up to hi - lo more, nested: opt_k ::= e opt_(k-1) | (empty).
    int32_t inner = -1;
    for (int k = 0; k < hi - lo; ++k) {
      Grammar::Alternative more = {e};
      if (inner >= 0) more.push_back(ref(inner));
      inner = made_rule({more, {}});
    }
    if (inner >= 0) atom.push_back(ref(inner));
  }

  // A rule that can reach itself before any character is read never stops
  // expanding: refused, naming it.
  void refuse_left_recursion() const {
    const size_t n = g_->rules.size();
    std::vector<bool> nullable(n, false);
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t r = 0; r < n; ++r) {
        if (nullable[r]) continue;
        for (const auto& alt : g_->rules[r]) {
          bool all = true;
          for (const auto& e : alt) all = all && e.rule >= 0 && nullable[size_t(e.rule)];
          if (all) {
            nullable[r] = changed = true;
            break;
          }
        }
      }
    }
    std::vector<int> mark(n, 0);  // 0 unseen, 1 on the path, 2 done
    std::vector<std::pair<size_t, size_t>> path;
    auto visit = [&](auto&& self, size_t r) -> void {
      if (mark[r] == 2) return;
      if (mark[r] == 1) fail(first_use_[r], "rule '" + shown_name(r) + "' is left-recursive (it reaches itself before "
                                             "reading a character)");
      mark[r] = 1;
      for (const auto& alt : g_->rules[r]) {
        for (const auto& e : alt) {
          if (e.rule < 0) break;
          self(self, size_t(e.rule));
          if (!nullable[size_t(e.rule)]) break;
        }
      }
      mark[r] = 2;
    };
    for (size_t r = 0; r < n; ++r) visit(visit, r);
  }

  std::string shown_name(size_t r) const {
    return g_->names[r].empty() ? "(a group or repetition)" : g_->names[r];
  }

  std::string_view text_;
  size_t pos_ = 0;
  int nesting_ = 0;
  std::shared_ptr<Grammar> g_ = std::make_shared<Grammar>();
  std::map<std::string, int32_t> ids_;
  std::vector<bool> defined_;
  std::vector<size_t> first_use_;
};

}  // namespace

std::shared_ptr<const Grammar> parse_gbnf(std::string_view text) { return GbnfParser(text).parse(); }

}  // namespace llm
}  // namespace wgrt
