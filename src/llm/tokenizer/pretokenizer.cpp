#include "llm/tokenizer/pretokenizer.h"

#include <array>

#include "llm/tokenizer/unicode.h"
#include "wgrt/error.h"

namespace wgrt::llm {
namespace {

enum class Class { Letter, Number, Space, Other };

struct Char {
  uint32_t cp;
  size_t start;  // byte offset in the piece
  Class cls;
};

std::vector<Char> decode(std::string_view s) {
  std::vector<Char> out;
  for (size_t i = 0; i < s.size();) {
    const Utf8Char c = decode_utf8(s, i);
    Class cls = Class::Other;
    if (c.cp != kInvalidCodepoint) {
      if (is_letter(c.cp)) cls = Class::Letter;
      else if (is_number(c.cp)) cls = Class::Number;
      else if (is_whitespace(c.cp)) cls = Class::Space;
    }
    out.push_back({c.cp, i, cls});
    i += c.size;
  }
  return out;
}

uint32_t lower_ascii(uint32_t cp) { return (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp; }

// Length in chars of a contraction ('s 't 're 've 'm 'll 'd) at i, or 0.
size_t contraction(const std::vector<Char>& c, size_t i, bool ignore_case) {
  if (c[i].cp != '\'' || i + 1 >= c.size()) return 0;
  auto at = [&](size_t k) { return ignore_case ? lower_ascii(c[k].cp) : c[k].cp; };
  const uint32_t a = at(i + 1);
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (i + 2 < c.size()) {
    const uint32_t b = at(i + 2);
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  }
  return 0;
}

size_t run_end(const std::vector<Char>& c, size_t i, Class cls) {
  while (i < c.size() && c[i].cls == cls) ++i;
  return i;
}

bool is_newline(uint32_t cp) { return cp == '\r' || cp == '\n'; }

// \s+(?!\S)|\s+ at i (c[i] is whitespace): the whole run at the end of the
// piece, otherwise all but its last char (which then leads the next word),
// and at least one char.
size_t whitespace_match(const std::vector<Char>& c, size_t i) {
  const size_t j = run_end(c, i, Class::Space);
  if (j == c.size() || j - i == 1) return j;
  return j - 1;
}

// One GPT-2 regex match starting at i; returns its end.
size_t gpt2_match(const std::vector<Char>& c, size_t i) {
  if (size_t n = contraction(c, i, false)) return i + n;
  const bool space = c[i].cp == ' ';
  const size_t k = (space && i + 1 < c.size()) ? i + 1 : i;  // after the optional ' '
  const Class cls = c[k].cls;
  // ' '?\p{L}+ | ' '?\p{N}+ | ' '?[^\s\p{L}\p{N}]+
  if (cls != Class::Space) return run_end(c, k, cls);
  if (c[i].cls == Class::Space) return whitespace_match(c, i);
  return i + 1;
}

// Llama 3's regex with numbers in runs of up to kMaxDigits (3; Qwen2's: 1).
template <size_t kMaxDigits>
size_t llama3_match(const std::vector<Char>& c, size_t i) {
  if (size_t n = contraction(c, i, true)) return i + n;
  const Class cls = c[i].cls;
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (cls == Class::Letter) return run_end(c, i, Class::Letter);
  if (cls != Class::Number && !is_newline(c[i].cp) && i + 1 < c.size() &&
      c[i + 1].cls == Class::Letter) {
    return run_end(c, i + 1, Class::Letter);
  }
  // \p{N}{1,3}
  if (cls == Class::Number) {
    size_t j = i;
    while (j < c.size() && j - i < kMaxDigits && c[j].cls == Class::Number) ++j;
    return j;
  }
  // ' '?[^\s\p{L}\p{N}]+[\r\n]*
  const size_t k = (c[i].cp == ' ' && i + 1 < c.size() && c[i + 1].cls == Class::Other) ? i + 1 : i;
  if (c[k].cls == Class::Other) {
    size_t j = run_end(c, k, Class::Other);
    while (j < c.size() && is_newline(c[j].cp)) ++j;
    return j;
  }
  // \s*[\r\n]+ : the longest whitespace prefix that ends in a newline.
  const size_t j = run_end(c, i, Class::Space);
  for (size_t e = j; e > i; --e) {
    if (is_newline(c[e - 1].cp)) return e;
  }
  return whitespace_match(c, i);
}

template <class Match>
void split(std::string_view text, Match match, std::vector<std::string_view>& out) {
  const std::vector<Char> c = decode(text);
  for (size_t i = 0; i < c.size();) {
    const size_t j = match(c, i);
    const size_t start = c[i].start;
    const size_t end = j < c.size() ? c[j].start : text.size();
    out.push_back(text.substr(start, end - start));
    i = j;
  }
}

}  // namespace

PreTokenizer pre_tokenizer_for(std::string_view pre) {
  static constexpr std::array kGpt2 = {"", "default", "gpt2", "gpt-2", "mpt", "olmo", "jais"};
  static constexpr std::array kDigits = {"smollm", "starcoder", "refact", "command-r",
                                         "codeshell", "exaone", "minerva"};
  static constexpr std::array kLlama3 = {"llama3", "llama-v3", "llama-bpe", "smaug-bpe", "falcon3"};
  static constexpr std::array kQwen2 = {"qwen2", "deepseek-r1-qwen"};
  for (std::string_view s : kGpt2) if (pre == s) return PreTokenizer::Gpt2;
  for (std::string_view s : kDigits) if (pre == s) return PreTokenizer::DigitsThenGpt2;
  for (std::string_view s : kLlama3) if (pre == s) return PreTokenizer::Llama3;
  for (std::string_view s : kQwen2) if (pre == s) return PreTokenizer::Qwen2;
  throw Error(ErrorCode::NotSupported,
              "tokenizer.ggml.pre '" + std::string(pre) +
                  "' names a pre-tokenizer wgrt does not implement (known: gpt2 family, "
                  "smollm/starcoder family, llama3 family, qwen2)");
}

std::vector<std::string_view> pre_tokenize(PreTokenizer kind, std::string_view text) {
  std::vector<std::string_view> out;
  switch (kind) {
    case PreTokenizer::Gpt2:
      split(text, gpt2_match, out);
      break;
    case PreTokenizer::Llama3:
      split(text, llama3_match<3>, out);
      break;
    case PreTokenizer::Qwen2:
      split(text, llama3_match<1>, out);
      break;
    case PreTokenizer::DigitsThenGpt2: {
      // Each number char is a part of its own; the rest split as GPT-2.
      const std::vector<Char> c = decode(text);
      size_t i = 0;
      while (i < c.size()) {
        size_t j = i;
        if (c[i].cls == Class::Number) {
          j = i + 1;
          out.push_back(text.substr(c[i].start, (j < c.size() ? c[j].start : text.size()) - c[i].start));
        } else {
          while (j < c.size() && c[j].cls != Class::Number) ++j;
          const size_t end = j < c.size() ? c[j].start : text.size();
          split(text.substr(c[i].start, end - c[i].start), gpt2_match, out);
        }
        i = j;
      }
      break;
    }
  }
  return out;
}

}  // namespace wgrt::llm
