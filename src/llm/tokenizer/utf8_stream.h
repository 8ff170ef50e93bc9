// Streaming detokenization: tokens can end in the middle of a UTF-8
// sequence (byte-level BPE splits emoji across tokens), so text is released
// only up to the last complete character and the rest is held back.
#pragma once

#include <string>
#include <string_view>

#include "llm/tokenizer/vocab.h"

namespace wgrt::llm {

class Tokenizer;

class Utf8Buffer {
 public:
  // Appends bytes; returns everything that ends on a complete UTF-8
  // sequence and keeps an incomplete tail (at most 3 bytes) for later.
  // Bytes that can never become valid UTF-8 are passed through.
  std::string push(std::string_view bytes);
  // Whatever is held back (possibly an incomplete sequence).
  std::string flush();
  bool empty() const { return pending_.empty(); }

 private:
  std::string pending_;
};

class StreamDecoder {
 public:
  explicit StreamDecoder(const Tokenizer& tokenizer) : tokenizer_(tokenizer) {}
  // The text token `id` completes (possibly "").
  std::string push(TokenId id);
  std::string finish() { return buffer_.flush(); }

 private:
  const Tokenizer& tokenizer_;
  Utf8Buffer buffer_;
  bool first_ = true;
};

}  // namespace wgrt::llm
