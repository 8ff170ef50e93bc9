// SentencePiece-style BPE (`tokenizer.ggml.model == "llama"`: Llama 2,
// TinyLlama): spaces become U+2581 (▁), an optional ▁ prefixes the input,
// and adjacent pieces merge while their concatenation is a token, highest
// score first. Pieces left without a token fall back to <0xNN> byte tokens.
#pragma once

#include <array>
#include <optional>

#include "llm/tokenizer/tokenizer_model.h"

namespace wgrt::llm {

class SpmTokenizer final : public TokenizerModel {
 public:
  explicit SpmTokenizer(const Vocab& vocab);

  void encode(std::string_view text, bool at_start, std::vector<TokenId>& out) const override;
  std::string token_bytes(TokenId id) const override;

 private:
  // The token a merge may produce (byte and control tokens are not merged into).
  std::optional<TokenId> mergeable(std::string_view piece) const;

  const Vocab& vocab_;
  std::array<TokenId, 256> byte_tokens_{};  // <0xNN>, or -1
};

}  // namespace wgrt::llm
