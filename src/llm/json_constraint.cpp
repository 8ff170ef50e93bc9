#include "llm/json_constraint.h"

#include <limits>

namespace wgrt::llm {

JsonObjectConstraint::JsonObjectConstraint(const Tokenizer& tokenizer, size_t vocab)
    : pieces_(vocab), ends_(vocab), special_(vocab) {
  for (size_t i = 0; i < vocab; ++i) {
    const TokenId id = TokenId(i);
    ends_[i] = tokenizer.is_end_of_generation(id);
    special_[i] = tokenizer.is_special(id);
    if (!special_[i]) pieces_[i] = tokenizer.decode_token(id);
  }
}

size_t JsonObjectConstraint::mask(std::span<float> logits) const {
  constexpr float kNever = -std::numeric_limits<float>::infinity();
  const bool whole = text_.complete();
  size_t left = 0;
  for (size_t i = 0; i < logits.size() && i < pieces_.size(); ++i) {
    bool allowed = false;
    if (whole) {
      allowed = ends_[i];
    } else if (!special_[i] && !pieces_[i].empty()) {
      JsonObjectPrefix trial = text_;
      allowed = trial.feed(pieces_[i]);
    }
    if (!allowed) logits[i] = kNever;
    left += allowed;
  }
  for (size_t i = pieces_.size(); i < logits.size(); ++i) logits[i] = kNever;  // padded rows
  return left;
}

void JsonObjectConstraint::accept(TokenId token) {
  if (token >= 0 && size_t(token) < pieces_.size() && !special_[size_t(token)]) text_.feed(pieces_[size_t(token)]);
}

}  // namespace wgrt::llm
