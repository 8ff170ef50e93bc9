// GrammarMatcher: the ways a text may still be read by a grammar, as stacks
// of positions (llm/grammar.h).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "llm/grammar.h"
#include "llm/tokenizer/unicode.h"
#include "wgrt/error.h"

namespace wgrt::llm {
namespace {

// The code points a UTF-8 character starting with `bytes` (a lead byte and
// fewer continuation bytes than it needs) may be: [lo, hi]; false if no
// valid character starts so (decode_utf8's rules: no overlong form, nothing
// past U+10FFFF).
bool prefix_range(std::string_view bytes, uint32_t* lo, uint32_t* hi) {
  constexpr uint32_t kLeast[5] = {0, 0, 0x80, 0x800, 0x10000};  // by length: less is overlong
  const size_t n = utf8_sequence_size(static_cast<uint8_t>(bytes[0]));
  if (n < 2 || bytes.size() >= n) return false;
  uint32_t v = static_cast<uint8_t>(bytes[0]) & (0xFF >> (n + 1));
  for (size_t i = 1; i < bytes.size(); ++i) {
    const auto b = static_cast<uint8_t>(bytes[i]);
    if ((b & 0xC0) != 0x80) return false;
    v = (v << 6) | (b & 0x3F);
  }
  const size_t missing = n - bytes.size();
  *lo = std::max(v << (6 * missing), kLeast[n]);
  *hi = std::min((v << (6 * missing)) | ((1u << (6 * missing)) - 1), uint32_t(0x10FFFF));
  return *lo <= *hi;
}

// The code points the first character of `bytes` may be (one, when it is
// whole); false when the bytes cannot start a character.
bool first_char_range(std::string_view bytes, uint32_t* lo, uint32_t* hi) {
  if (bytes.size() < utf8_sequence_size(static_cast<uint8_t>(bytes[0]))) return prefix_range(bytes, lo, hi);
  const Utf8Char c = decode_utf8(bytes, 0);
  if (c.cp == kInvalidCodepoint) return false;
  *lo = *hi = c.cp;
  return true;
}

bool may_match(const GrammarElement& e, uint32_t lo, uint32_t hi) {
  if (lo == hi) return e.matches(lo);
  if (e.negate) return true;  // a range wider than the excluded sets, nearly always
  for (const auto& [a, b] : e.ranges) {
    if (a <= hi && b >= lo) return true;
  }
  return false;
}

}  // namespace

GrammarMatcher::GrammarMatcher(std::shared_ptr<const Grammar> grammar) : grammar_(std::move(grammar)) {
  const int32_t root = grammar_->root;
  for (size_t a = 0; a < grammar_->rules[size_t(root)].size(); ++a) {
    expand(Stack{Position{root, int32_t(a), 0}}, state_.stacks);
  }
  if (state_.stacks.empty()) throw Error(ErrorCode::InvalidArgument, "grammar: the root rule matches nothing");
}

const GrammarElement& GrammarMatcher::top(const Stack& s) const {
  const Position& p = s.back();
  return grammar_->rules[size_t(p.rule)][size_t(p.alt)][size_t(p.index)];
}

void GrammarMatcher::expand(Stack stack, std::vector<Stack>& out, int depth) const {
  for (;;) {
    if (stack.empty()) break;
    const Position p = stack.back();
    const auto& alt = grammar_->rules[size_t(p.rule)][size_t(p.alt)];
    if (size_t(p.index) >= alt.size()) {
      stack.pop_back();  // the rule is read: its caller's next element
      continue;
    }
    const GrammarElement& e = alt[size_t(p.index)];
    if (e.rule < 0) break;
    // A reference: the caller goes on after it (a finished caller is
    // dropped now, so right recursion does not grow the stack), and each of
    // the rule's alternatives is read first.
    stack.back().index += 1;
    if (size_t(stack.back().index) >= alt.size()) stack.pop_back();
    // Left recursion is refused at parse, so this ends; the depth guards
    // against a deep chain of rules that read nothing.
    if (depth > int(kMaxDepth)) return;  // a reading nested past kMaxDepth is dropped
    const auto& alts = grammar_->rules[size_t(e.rule)];
    for (size_t a = 0; a < alts.size(); ++a) {
      Stack next = stack;
      next.push_back(Position{e.rule, int32_t(a), 0});
      expand(std::move(next), out, depth + 1);
    }
    return;
  }
  if (stack.size() > kMaxDepth || out.size() >= kMaxStacks) return;
  if (std::find(out.begin(), out.end(), stack) == out.end()) out.push_back(std::move(stack));
}

bool GrammarMatcher::advance(const State& from, std::string_view bytes, State& state) const {
  std::string text = from.partial + std::string(bytes);
  const std::vector<Stack>* stacks = &from.stacks;  // the state's own once a character is read
  size_t i = 0;
  while (i < text.size()) {
    const size_t len = utf8_sequence_size(static_cast<uint8_t>(text[i]));
    if (len == 0) return false;  // a continuation or invalid byte where a character starts
    if (i + len > text.size()) break;  // split by the token: kept for the next
    const Utf8Char c = decode_utf8(text, i);
    if (c.cp == kInvalidCodepoint) return false;
    const uint32_t cp = c.cp;
    std::vector<Stack> next;
    for (const Stack& s : *stacks) {
      if (s.empty() || !top(s).matches(cp)) continue;
      Stack moved = s;
      moved.back().index += 1;
      expand(std::move(moved), next);
    }
    if (next.empty()) return false;
    state.stacks = std::move(next);
    stacks = &state.stacks;
    i += len;
  }
  if (stacks != &state.stacks) state.stacks = from.stacks;  // no whole character: the stacks stay
  state.partial = text.substr(i);
  if (!state.partial.empty()) {
    uint32_t lo = 0, hi = 0;
    if (!prefix_range(state.partial, &lo, &hi)) return false;
    const bool viable = std::any_of(state.stacks.begin(), state.stacks.end(),
                                    [&](const Stack& s) { return !s.empty() && may_match(top(s), lo, hi); });
    if (!viable) return false;
  }
  return true;
}

bool GrammarMatcher::feed(std::string_view bytes) {
  State next;
  if (!advance(state_, bytes, next)) return false;
  state_ = std::move(next);
  return true;
}

bool GrammarMatcher::accepts(std::string_view bytes) const {
  // Most of a vocabulary fails at its first character: that is checked
  // without copying the state (a mask asks this of every token each step).
  if (state_.partial.empty() && !bytes.empty()) {
    uint32_t lo = 0, hi = 0;
    if (!first_char_range(bytes, &lo, &hi)) return false;
    const bool may = std::any_of(state_.stacks.begin(), state_.stacks.end(),
                                 [&](const Stack& s) { return !s.empty() && may_match(top(s), lo, hi); });
    if (!may) return false;
  }
  State next;
  return advance(state_, bytes, next);
}

bool GrammarMatcher::complete() const {
  return state_.partial.empty() &&
         std::any_of(state_.stacks.begin(), state_.stacks.end(), [](const Stack& s) { return s.empty(); });
}

}  // namespace wgrt::llm
