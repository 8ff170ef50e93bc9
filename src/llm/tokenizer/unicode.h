// The little Unicode the tokenizers need: UTF-8 decoding that never fails
// (a bad byte is one code point of its own), and the \p{L}, \p{N} and \s
// classes of the pre-tokenizer regexes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace wgrt::llm {

struct CodepointRange {
  uint32_t first, last;  // inclusive
};

namespace unicode_tables {
extern const CodepointRange kLetters[];
extern const size_t kLetterCount;
extern const CodepointRange kNumbers[];
extern const size_t kNumberCount;
}  // namespace unicode_tables

struct Utf8Char {
  uint32_t cp;  // kInvalidCodepoint for a byte that starts no valid sequence
  size_t size;  // bytes consumed (>= 1)
};
inline constexpr uint32_t kInvalidCodepoint = 0xFFFFFFFF;

// Decodes the sequence starting at s[i] (i < s.size()).
Utf8Char decode_utf8(std::string_view s, size_t i);
std::string encode_utf8(uint32_t cp);
// Bytes a sequence with this lead byte has (1..4), or 0 for a continuation
// or invalid byte.
size_t utf8_sequence_size(uint8_t lead);

bool is_letter(uint32_t cp);      // \p{L}
bool is_number(uint32_t cp);      // \p{N}
bool is_whitespace(uint32_t cp);  // \s: Unicode White_Space

}  // namespace wgrt::llm
