#include "llm/tokenizer/utf8_stream.h"

#include "llm/tokenizer/tokenizer.h"
#include "llm/tokenizer/unicode.h"

namespace wgrt::llm {

std::string Utf8Buffer::push(std::string_view bytes) {
  pending_.append(bytes);
  // Find the last lead byte within the final 4 bytes; hold it back if its
  // sequence is not complete yet.
  size_t keep_from = pending_.size();
  const size_t lookback = pending_.size() < 4 ? pending_.size() : 4;
  for (size_t k = 1; k <= lookback; ++k) {
    const size_t i = pending_.size() - k;
    const auto c = static_cast<uint8_t>(pending_[i]);
    if ((c & 0xC0) == 0x80) continue;  // continuation: keep looking for its lead
    const size_t need = utf8_sequence_size(c);
    if (need > k) keep_from = i;  // incomplete
    break;
  }
  std::string ready = pending_.substr(0, keep_from);
  pending_.erase(0, keep_from);
  return ready;
}

std::string Utf8Buffer::flush() {
  std::string out;
  out.swap(pending_);
  return out;
}

std::string StreamDecoder::push(TokenId id) {
  std::string piece = tokenizer_.decode_token(id);
  if (first_ && !tokenizer_.is_special(id)) {
    if (tokenizer_.strips_leading_space() && !piece.empty() && piece[0] == ' ') piece.erase(0, 1);
    first_ = false;
  }
  return buffer_.push(piece);
}

}  // namespace wgrt::llm
