// A tokenizer's vocabulary as GGUF stores it (`tokenizer.ggml.*`): token
// texts, scores and types, the special ids and the add-BOS/EOS flags.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace wgrt::gguf {
class GgufFile;
}

namespace wgrt::llm {

using TokenId = int32_t;

// The values of `tokenizer.ggml.token_type`.
enum class TokenType : int32_t {
  Undefined = 0, Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6,
};

struct Vocab {
  std::string model;  // tokenizer.ggml.model: "gpt2", "llama", ...
  std::string pre;    // tokenizer.ggml.pre ("" when absent)
  std::vector<std::string> tokens;
  std::vector<float> scores;     // empty when the file has none
  std::vector<TokenType> types;  // all Normal when the file has none
  std::vector<std::string> merges;
  std::optional<TokenId> bos, eos, unk, pad, eot, eom;
  // Every token that ends a generation, sorted: eos, eot, eom and the tokens
  // whose text is a known end-of-turn marker (<|im_end|>, <|endoftext|>,
  // <|eot_id|>, <end_of_turn>, ...), as llama.cpp collects them.
  std::vector<TokenId> end_of_generation;
  bool add_bos = false;
  bool add_eos = false;
  bool add_space_prefix = false;
  std::string chat_template;  // tokenizer.chat_template ("" when absent)

  // Reads the keys above; InvalidProgram naming the key for wrong types,
  // mismatched array lengths or ids out of range.
  static Vocab from_gguf(const gguf::GgufFile& file);

  size_t size() const { return tokens.size(); }
  std::optional<TokenId> find(std::string_view text) const;
  TokenType type(TokenId id) const { return types[static_cast<size_t>(id)]; }
  float score(TokenId id) const { return scores.empty() ? 0.0f : scores[static_cast<size_t>(id)]; }
  bool valid(TokenId id) const { return id >= 0 && static_cast<size_t>(id) < tokens.size(); }
  // Builds the text -> id index (from_gguf does this; call after editing tokens).
  void index();

 private:
  std::unordered_map<std::string, TokenId> ids_;
};

}  // namespace wgrt::llm
