#include "llm/json_constraint.h"

namespace wgrt::llm {

TokenTexts::TokenTexts(const Tokenizer& tokenizer, size_t vocab)
    : pieces(vocab), ends(vocab), plain(vocab), chars(vocab) {
  for (size_t i = 0; i < vocab; ++i) {
    const TokenId id = TokenId(i);
    ends[i] = tokenizer.is_end_of_generation(id);
    if (tokenizer.is_special(id)) continue;
    pieces[i] = tokenizer.decode_token(id);
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
