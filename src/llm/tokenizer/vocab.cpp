#include "llm/tokenizer/vocab.h"

#include <algorithm>

#include "import/gguf/gguf_file.h"
#include "wgrt/error.h"

namespace wgrt::llm {
namespace {

std::optional<TokenId> read_id(const gguf::GgufFile& f, const std::string& key, size_t vocab_size) {
  const std::optional<int64_t> id = f.get_int_optional(key);
  if (!id) return std::nullopt;
  // Some converters write -1 for "none".
  if (*id < 0) return std::nullopt;
  if (static_cast<uint64_t>(*id) >= vocab_size) {
    throw Error(ErrorCode::InvalidProgram, "gguf '" + f.name() + "': " + key + " is " +
                                               std::to_string(*id) + ", expected an id below the vocabulary size " +
                                               std::to_string(vocab_size));
  }
  return static_cast<TokenId>(*id);
}

// Texts that end a turn in the chat formats of common model families; a
// vocabulary with one of them stops generation there even when its GGUF
// names another token as EOS (SmolLM2: <|im_end|> and <|endoftext|>).
constexpr std::string_view kEndOfTurnTexts[] = {
    "<|endoftext|>", "<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<|end|>", "<end_of_turn>", "<|end_of_text|>",
    "<EOT>", "<|return|>", "<|call|>", "<｜end▁of▁sentence｜>",
};

}  // namespace

Vocab Vocab::from_gguf(const gguf::GgufFile& f) {
  Vocab v;
  v.model = f.get_string("tokenizer.ggml.model");
  v.pre = f.get_optional<std::string>("tokenizer.ggml.pre").value_or("");
  v.tokens = f.get_array<std::string>("tokenizer.ggml.tokens");
  const size_t n = v.tokens.size();
  auto check_size = [&](const char* key, size_t got) {
    if (got != n) {
      throw Error(ErrorCode::InvalidProgram, "gguf '" + f.name() + "': " + key + " has " +
                                                 std::to_string(got) + " entries, expected " +
                                                 std::to_string(n) + " (one per token)");
    }
  };
  if (f.has("tokenizer.ggml.scores")) {
    v.scores = f.get_array<float>("tokenizer.ggml.scores");
    check_size("tokenizer.ggml.scores", v.scores.size());
  }
  if (f.has("tokenizer.ggml.token_type")) {
    const auto& types = f.get_array<int32_t>("tokenizer.ggml.token_type");
    check_size("tokenizer.ggml.token_type", types.size());
    v.types.reserve(n);
    for (int32_t t : types) v.types.push_back(static_cast<TokenType>(t));
  } else {
    v.types.assign(n, TokenType::Normal);
  }
  if (f.has("tokenizer.ggml.merges")) v.merges = f.get_array<std::string>("tokenizer.ggml.merges");
  v.bos = read_id(f, "tokenizer.ggml.bos_token_id", n);
  v.eos = read_id(f, "tokenizer.ggml.eos_token_id", n);
  v.unk = read_id(f, "tokenizer.ggml.unknown_token_id", n);
  v.pad = read_id(f, "tokenizer.ggml.padding_token_id", n);
  v.eot = read_id(f, "tokenizer.ggml.eot_token_id", n);
  v.eom = read_id(f, "tokenizer.ggml.eom_token_id", n);
  // SentencePiece models add BOS and a space prefix unless told otherwise.
  const bool spm = v.model == "llama";
  v.add_bos = f.get_optional<bool>("tokenizer.ggml.add_bos_token").value_or(spm);
  v.add_eos = f.get_optional<bool>("tokenizer.ggml.add_eos_token").value_or(false);
  v.add_space_prefix = f.get_optional<bool>("tokenizer.ggml.add_space_prefix").value_or(spm);
  v.chat_template = f.get_optional<std::string>("tokenizer.chat_template").value_or("");
  v.index();
  for (const auto& id : {v.eos, v.eot, v.eom}) {
    if (id) v.end_of_generation.push_back(*id);
  }
  for (std::string_view text : kEndOfTurnTexts) {
    if (auto id = v.find(text)) v.end_of_generation.push_back(*id);
  }
  std::sort(v.end_of_generation.begin(), v.end_of_generation.end());
  v.end_of_generation.erase(std::unique(v.end_of_generation.begin(), v.end_of_generation.end()),
                            v.end_of_generation.end());
  return v;
}

void Vocab::index() {
  ids_.clear();
  ids_.reserve(tokens.size());
  // The first id wins when a text repeats.
  for (size_t i = 0; i < tokens.size(); ++i) ids_.emplace(tokens[i], static_cast<TokenId>(i));
}

std::optional<TokenId> Vocab::find(std::string_view text) const {
  auto it = ids_.find(std::string(text));
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

}  // namespace wgrt::llm
