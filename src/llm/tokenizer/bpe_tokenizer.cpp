#include "llm/tokenizer/bpe_tokenizer.h"

#include <limits>

#include "llm/tokenizer/unicode.h"
#include "wgrt/error.h"

namespace wgrt::llm {

uint32_t byte_to_codepoint(uint8_t b) {
  const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
  if (printable) return b;
  // The n-th non-printable byte (in byte order) maps to U+0100 + n.
  uint32_t n = 0;
  for (uint32_t c = 0; c < b; ++c) {
    const bool p = (c >= 0x21 && c <= 0x7E) || (c >= 0xA1 && c <= 0xAC) || c >= 0xAE;
    if (!p) ++n;
  }
  return 0x100 + n;
}

BpeTokenizer::BpeTokenizer(const Vocab& vocab, PreTokenizer pre) : vocab_(vocab), pre_(pre) {
  for (int b = 0; b < 256; ++b) {
    const uint32_t cp = byte_to_codepoint(static_cast<uint8_t>(b));
    codepoint_to_byte_[cp] = static_cast<uint8_t>(b);
    byte_tokens_[b] = vocab.find(encode_utf8(cp)).value_or(-1);
  }
  merges_.reserve(vocab.merges.size());
  for (size_t rank = 0; rank < vocab.merges.size(); ++rank) {
    const std::string& m = vocab.merges[rank];
    const size_t space = m.find(' ', 1);
    if (space == std::string::npos || space + 1 >= m.size()) {
      throw Error(ErrorCode::InvalidProgram, "tokenizer.ggml.merges[" + std::to_string(rank) +
                                                 "] is '" + m + "', expected 'left right'");
    }
    const auto left = vocab.find(std::string_view(m).substr(0, space));
    const auto right = vocab.find(std::string_view(m).substr(space + 1));
    const auto result = vocab.find(m.substr(0, space) + m.substr(space + 1));
    // A merge whose parts or result are not tokens can never apply.
    if (!left || !right || !result) continue;
    merges_.emplace(pair_key(*left, *right), Merge{static_cast<uint32_t>(rank), *result});
  }
}

void BpeTokenizer::encode(std::string_view text, bool, std::vector<TokenId>& out) const {
  for (std::string_view piece : pre_tokenize(pre_, text)) encode_piece(piece, out);
}

void BpeTokenizer::encode_piece(std::string_view piece, std::vector<TokenId>& out) const {
  // Llama 3's tokenizer ignores the merges for a piece that is a token as a
  // whole (tokenizer.json "ignore_merges"; llama.cpp does the same for its
  // llama3 pre-tokenizer): merging may not reach it, e.g. "ệt" in "Việt".
  if (pre_ == PreTokenizer::Llama3 && piece.size() > 1) {
    std::string symbols;
    for (char c : piece) symbols += encode_utf8(byte_to_codepoint(static_cast<uint8_t>(c)));
    if (auto id = vocab_.find(symbols)) {
      out.push_back(*id);
      return;
    }
  }
  std::vector<TokenId> sym;
  sym.reserve(piece.size());
  for (char c : piece) {
    const TokenId id = byte_tokens_[static_cast<uint8_t>(c)];
    if (id < 0) {
      if (!vocab_.unk) {
        throw Error(ErrorCode::InvalidArgument,
                    "byte-level BPE vocabulary has no token for byte " +
                        std::to_string(static_cast<uint8_t>(c)) + " and no unknown token");
      }
      sym.push_back(*vocab_.unk);
    } else {
      sym.push_back(id);
    }
  }
  // Repeatedly apply the earliest-ranked merge present, at every place it
  // occurs, left to right.
  while (sym.size() > 1) {
    uint32_t best = std::numeric_limits<uint32_t>::max();
    TokenId best_left = -1, best_right = -1, best_result = -1;
    for (size_t i = 0; i + 1 < sym.size(); ++i) {
      auto it = merges_.find(pair_key(sym[i], sym[i + 1]));
      if (it != merges_.end() && it->second.rank < best) {
        best = it->second.rank;
        best_left = sym[i];
        best_right = sym[i + 1];
        best_result = it->second.result;
      }
    }
    if (best_result < 0) break;
    size_t w = 0;
    for (size_t i = 0; i < sym.size(); ++i) {
      if (i + 1 < sym.size() && sym[i] == best_left && sym[i + 1] == best_right) {
        sym[w++] = best_result;
        ++i;
      } else {
        sym[w++] = sym[i];
      }
    }
    sym.resize(w);
  }
  out.insert(out.end(), sym.begin(), sym.end());
}

std::string BpeTokenizer::token_bytes(TokenId id) const {
  const std::string& text = vocab_.tokens[static_cast<size_t>(id)];
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const Utf8Char c = decode_utf8(text, i);
    auto it = codepoint_to_byte_.find(c.cp);
    if (it != codepoint_to_byte_.end()) {
      out += static_cast<char>(it->second);
    } else {
      out.append(text, i, c.size);  // not a mapped byte: keep the text as is
    }
    i += c.size;
  }
  return out;
}

}  // namespace wgrt::llm
