// Byte-level BPE (GPT-2 style, `tokenizer.ggml.model == "gpt2"`): text is
// split by the pre-tokenizer, each piece's bytes are mapped to printable
// code points (GPT-2's byte-to-unicode table) and merged pairwise in the
// order of `tokenizer.ggml.merges` (earlier merges first).
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>

#include "llm/tokenizer/pretokenizer.h"
#include "llm/tokenizer/tokenizer_model.h"

namespace wgrt::llm {

// GPT-2's reversible map from bytes to code points: printable Latin-1 bytes
// map to themselves, the other 68 to U+0100 onwards in byte order.
uint32_t byte_to_codepoint(uint8_t b);

class BpeTokenizer final : public TokenizerModel {
 public:
  // InvalidProgram for a malformed merge entry.
  BpeTokenizer(const Vocab& vocab, PreTokenizer pre);

  void encode(std::string_view text, bool at_start, std::vector<TokenId>& out) const override;
  std::string token_bytes(TokenId id) const override;

 private:
  struct Merge {
    uint32_t rank;
    TokenId result;
  };
  static uint64_t pair_key(TokenId a, TokenId b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  }
  void encode_piece(std::string_view piece, std::vector<TokenId>& out) const;

  const Vocab& vocab_;
  PreTokenizer pre_;
  std::array<TokenId, 256> byte_tokens_{};
  std::unordered_map<uint64_t, Merge> merges_;
  std::unordered_map<uint32_t, uint8_t> codepoint_to_byte_;
};

}  // namespace wgrt::llm
