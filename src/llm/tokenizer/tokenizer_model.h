// What a tokenization algorithm (byte-level BPE, SentencePiece) provides to
// Tokenizer, which handles special tokens, BOS/EOS and decoding of sequences.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "llm/tokenizer/vocab.h"

namespace wgrt::llm {

class TokenizerModel {
 public:
  virtual ~TokenizerModel() = default;
  // Appends the ids for `text`, which holds no special tokens. `at_start`
  // says whether it begins the whole input (SentencePiece's space prefix).
  virtual void encode(std::string_view text, bool at_start, std::vector<TokenId>& out) const = 0;
  // The bytes a non-special token stands for.
  virtual std::string token_bytes(TokenId id) const = 0;
};

}  // namespace wgrt::llm
