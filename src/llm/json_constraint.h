// Constrained decoding for `response_format: {"type": "json_object"}`: before
// each draw, every token whose text cannot continue a JSON object
// (llm/json_prefix.h) gets a logit of -infinity; once the object is whole,
// only end-of-generation tokens remain. The draw then happens as usual, so
// temperature, top-k/p and seeds work inside the constraint.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "llm/json_prefix.h"
#include "llm/tokenizer/tokenizer.h"

namespace wgrt::llm {

class JsonObjectConstraint {
 public:
  // Reads each of the first `vocab` tokens' text once.
  JsonObjectConstraint(const Tokenizer& tokenizer, size_t vocab);

  // Masks `logits` (one per token); returns how many tokens remain.
  size_t mask(std::span<float> logits) const;
  // The token drawn: the text moves on.
  void accept(TokenId token);
  bool complete() const { return text_.complete(); }

 private:
  std::vector<std::string> pieces_;  // each token's bytes; special tokens marked in ends_
  std::vector<bool> ends_;           // end-of-generation tokens
  std::vector<bool> special_;
  JsonObjectPrefix text_;
};

}  // namespace wgrt::llm
