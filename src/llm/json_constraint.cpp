#include "llm/json_constraint.h"

namespace wgrt::llm {

namespace {

std::vector<std::string> token_pieces(const Tokenizer& tokenizer, size_t vocab) {
  std::vector<std::string> pieces(vocab);
  for (size_t i = 0; i < vocab; ++i) {
    if (!tokenizer.is_special(TokenId(i))) pieces[i] = tokenizer.decode_token(TokenId(i));
  }
  return pieces;
}

std::vector<bool> not_ends(const Tokenizer& tokenizer, size_t vocab) {
  std::vector<bool> keep(vocab);
  for (size_t i = 0; i < vocab; ++i) keep[i] = !tokenizer.is_end_of_generation(TokenId(i));
  return keep;
}

}  // namespace

WorkerPool& constraint_workers() {
  static WorkerPool pool(WorkerPool::default_threads(8));
  return pool;
}

TokenTexts::TokenTexts(const Tokenizer& tokenizer, size_t vocab)
    : pieces(token_pieces(tokenizer, vocab)),
      ends(vocab),
      plain(vocab),
      chars(vocab),
      trie(pieces, not_ends(tokenizer, vocab)) {
  for (size_t i = 0; i < vocab; ++i) {
    const TokenId id = TokenId(i);
    ends[i] = tokenizer.is_end_of_generation(id);
    if (pieces[i].empty()) continue;
    bool ok = true;
    int64_t n = 0;
    for (char c : pieces[i]) {
      const auto b = static_cast<unsigned char>(c);
      ok = ok && b >= 0x20 && c != '"' && c != '\\';
      n += (b & 0xC0) != 0x80;
    }
    plain[i] = ok;
    chars[i] = n;
  }
}

}  // namespace wgrt::llm
