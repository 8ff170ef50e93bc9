// Constrained decoding for `response_format` json_object and json_schema,
// and for GBNF grammars: before each draw, every token whose text cannot
// continue the text the matcher allows (llm/json_prefix.h: any object;
// llm/json_schema.h: a schema's values; llm/grammar.h: a grammar's
// sentences) gets a logit of -infinity; end-of-generation tokens are allowed
// once the text is whole, and for JSON only they remain then (a grammar's
// whole sentence may go on, as `[a-z]+` does). The draw then happens as
// usual, so temperature, top-k/p and seeds work inside the constraint.
//
// Inside a string that only its length constrains, a token of plain
// characters (no quote, backslash or control byte) is judged by its length
// alone, without feeding it: most of a vocabulary, most of the time.
// Elsewhere the matcher walks the vocabulary's trie (llm/token_trie.h), so
// a shared prefix is fed once and a refused byte rules out every token
// under it; the walk is split across a few threads of the constraint's own
// (a grammar's mask took 10-18 ms on one core of a 2-core machine, longer
// than a small model's forward pass on a GPU).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "llm/grammar.h"
#include "llm/json_prefix.h"
#include "llm/json_schema.h"
#include "llm/token_trie.h"
#include "llm/tokenizer/tokenizer.h"

namespace wgrt::llm {

// Each token's text and what the constraint needs to know of it, read once.
struct TokenTexts {
  TokenTexts(const Tokenizer& tokenizer, size_t vocab);
  std::vector<std::string> pieces;  // "" for special tokens
  std::vector<bool> ends;           // end-of-generation tokens
  std::vector<bool> plain;          // only characters a string may hold unescaped
  std::vector<int64_t> chars;       // UTF-8 characters in the piece
  TokenTrie trie;                   // the pieces of every token but the ends
};

// What the generation loop sees of a constraint.
class TokenConstraint {
 public:
  virtual ~TokenConstraint() = default;
  // Which of `vocab` tokens may come next (1) in `allowed`; returns how
  // many. Needs no logits, so it can run while the GPU computes them.
  virtual size_t allowed(size_t vocab, std::vector<uint8_t>& allowed) const = 0;
  // Sets the logits of the tokens `allowed` leaves out to -infinity.
  static void apply(const std::vector<uint8_t>& allowed, std::span<float> logits) {
    for (size_t i = 0; i < logits.size(); ++i) {
      if (i >= allowed.size() || !allowed[i]) logits[i] = -std::numeric_limits<float>::infinity();
    }
  }
  // The token drawn: the text moves on.
  virtual void accept(TokenId token) = 0;
};

// Whether a matcher's text ends once it is whole (the JSON ones), or may go
// on (a matcher that says kEndsWhenComplete = false).
template <typename Matcher>
constexpr bool ends_when_complete() {
  if constexpr (requires { Matcher::kEndsWhenComplete; }) {
    return Matcher::kEndsWhenComplete;
  } else {
    return true;
  }
}

// The threads every constraint's trie walk is split across (up to 8), one
// pool for the process: a server's constrained sequences (several in one
// batch) share them rather than each making its own.
WorkerPool& constraint_workers();

template <typename Matcher>
class JsonConstraint : public TokenConstraint {
 public:
  // `texts`: the model's, shared by every request (LlmModel::token_texts).
  JsonConstraint(std::shared_ptr<const TokenTexts> texts, Matcher matcher)
      : texts_(std::move(texts)), matcher_(std::move(matcher)) {}

  size_t allowed(size_t vocab, std::vector<uint8_t>& allowed) const override {
    const bool whole = matcher_.complete();
    int64_t room = 0;
    const bool plain_string = !whole && matcher_.in_plain_string(&room);
    const size_t n = std::min(vocab, texts_->pieces.size());  // rows past it: padding
    allowed.assign(vocab, 0);
    for (size_t i = 0; i < n; ++i) allowed[i] = texts_->ends[i] && whole;
    if (!(whole && ends_when_complete<Matcher>())) {
      if (plain_string) {
        for (size_t i = 0; i < n; ++i) {
          if (texts_->ends[i] || texts_->pieces[i].empty()) continue;
          allowed[i] = texts_->plain[i] ? room < 0 || texts_->chars[i] <= room : matcher_.accepts(texts_->pieces[i]);
        }
      } else {
        texts_->trie.walk(
            matcher_,
            [&](int32_t id) {
              if (size_t(id) < n) allowed[size_t(id)] = 1;  // distinct ids: no two threads write one byte
            },
            constraint_workers());
      }
    }
    size_t left = 0;
    for (uint8_t a : allowed) left += a;
    return left;
  }
  void accept(TokenId token) override {
    if (token >= 0 && size_t(token) < texts_->pieces.size()) matcher_.feed(texts_->pieces[size_t(token)]);
  }
  bool complete() const { return matcher_.complete(); }

 private:
  std::shared_ptr<const TokenTexts> texts_;
  Matcher matcher_;
};

using JsonObjectConstraint = JsonConstraint<JsonObjectPrefix>;
using JsonSchemaConstraint = JsonConstraint<JsonSchemaMatcher>;
using GrammarConstraint = JsonConstraint<GrammarMatcher>;

}  // namespace wgrt::llm
