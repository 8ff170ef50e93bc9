// Pre-tokenization for byte-level BPE: splitting text into the pieces BPE
// merges within, as the regex named by a GGUF file's `tokenizer.ggml.pre`
// would. The regexes use \p{L}/\p{N} classes that std::regex lacks, so each
// is a small hand-written matcher over code points.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wgrt::llm {

enum class PreTokenizer {
  // GPT-2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
  Gpt2,
  // Each \p{N} split off on its own first, then GPT-2 within each part
  // (StarCoder's and SmolLM's tokenizers: Digits(individual) + ByteLevel).
  DigitsThenGpt2,
  // Llama 3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
  //          ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
  Llama3,
  // Qwen2: Llama 3's with \p{N} one at a time instead of \p{N}{1,3}.
  Qwen2,
};

// The pre-tokenizer for a `tokenizer.ggml.pre` value ("" or absent: GPT-2).
// NotSupported naming the value for ones wgrt does not know.
PreTokenizer pre_tokenizer_for(std::string_view pre);

// The pieces of `text`, in order; concatenated they are `text` again.
std::vector<std::string_view> pre_tokenize(PreTokenizer kind, std::string_view text);

}  // namespace wgrt::llm
