// GBNF grammars (llama.cpp's format, the `grammar` field of its server) for
// constrained decoding: parse_gbnf compiles the text into rules of
// alternatives of elements, each element a set of characters or a reference
// to a rule; groups, repetitions (* + ? {m,n}) and literals become plain
// rules and sets. GrammarMatcher follows every way the text generated so far
// may be read (a stack of positions per way) and is the matcher of a
// TokenConstraint (llm/json_constraint.h), as the JSON matchers are.
//
// Supported: `name ::= ...` rules (root is where text starts), alternatives
// `|`, sequences, "literals" and [character classes] (ranges, ^ negation,
// escapes \n \r \t \\ \" \' \[ \] \- \xHH \uHHHH \UHHHHHHHH), `.` (any
// character), ( groups ), * + ? {m} {m,} {m,n}, # comments. A rule that
// reaches itself before reading a character (left recursion) is refused,
// as is a reference to an undefined rule; at most 4096 rules (groups and
// repetitions count) and groups 64 deep.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wgrt {

struct GrammarElement {
  int32_t rule = -1;  // >= 0: a reference to that rule; else a character set
  bool negate = false;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;  // inclusive code point ranges
  bool matches(uint32_t c) const;
};

struct Grammar {
  using Alternative = std::vector<GrammarElement>;
  std::vector<std::string> names;                  // per rule ("" for made ones)
  std::vector<std::vector<Alternative>> rules;     // rule -> alternatives
  int32_t root = 0;
};

namespace llm {

// Error(InvalidArgument) naming the line, column and what is wrong.
std::shared_ptr<const Grammar> parse_gbnf(std::string_view text);

class GrammarMatcher {
 public:
  // The most ways to read the text kept at once: a grammar ambiguous past
  // it keeps the first ones.
  static constexpr size_t kMaxStacks = 256;
  // The most positions a reading may stack (rules inside rules, as nested
  // brackets make): a deeper reading is dropped, so that each byte costs a
  // bounded time, as JSON's nesting bound does.
  static constexpr size_t kMaxDepth = 256;

  // A whole sentence may go on (`[a-z]+`): the constraint allows both.
  static constexpr bool kEndsWhenComplete = false;

  explicit GrammarMatcher(std::shared_ptr<const Grammar> grammar);
  // False (and the state unchanged) when `bytes` cannot continue the text.
  bool feed(std::string_view bytes);
  // Whether feed(bytes) would succeed, leaving the state as it is.
  bool accepts(std::string_view bytes) const;
  // The text so far is a whole sentence of the grammar.
  bool complete() const;
  // The JSON matchers' shortcut for plain string content; none here.
  bool in_plain_string(int64_t*) const { return false; }

 private:
  struct Position {
    int32_t rule, alt, index;
    bool operator==(const Position&) const = default;
  };
  using Stack = std::vector<Position>;  // the next element to read at the back
  struct State {
    std::vector<Stack> stacks;
    std::string partial;  // bytes of a character a token split
  };
  // Stacks whose top is a character set (an empty stack: the text may end).
  void expand(Stack stack, std::vector<Stack>& out, int depth = 0) const;
  // `from` with `bytes` read, into `state` (false: they cannot continue it).
  bool advance(const State& from, std::string_view bytes, State& state) const;
  const GrammarElement& top(const Stack& s) const;

  std::shared_ptr<const Grammar> grammar_;
  State state_;
};

}  // namespace llm
}  // namespace wgrt
