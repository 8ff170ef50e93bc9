// The tokenizer of a GGUF model: byte-level BPE or SentencePiece chosen by
// `tokenizer.ggml.model`, with special tokens (control and user-defined
// types) recognised in text as whole tokens, BOS/EOS handling and decoding.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llm/tokenizer/vocab.h"

namespace wgrt::gguf {
class GgufFile;
}

namespace wgrt::llm {

class TokenizerModel;

enum class TokenizerKind { BytePairGpt2, SentencePiece };

class Tokenizer {
 public:
  // NotSupported for tokenizer models or pre-tokenizers wgrt lacks.
  static Tokenizer from_gguf(const gguf::GgufFile& file);
  explicit Tokenizer(Vocab vocab);
  ~Tokenizer();
  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;

  // `add_special`: prepend BOS / append EOS where the vocabulary asks for it
  // (tokenizer.ggml.add_bos_token / add_eos_token). `parse_special`: text
  // such as "<|im_start|>" becomes its special token; otherwise it is
  // tokenized as plain text. User-defined tokens
  // (type 4, e.g. Gemma's) are matched either way, as SentencePiece and
  // llama.cpp do.
  std::vector<TokenId> encode(std::string_view text, bool add_special = true,
                              bool parse_special = true) const;

  // The bytes of one token; special tokens give their text. A token may end
  // inside a UTF-8 sequence: stream through StreamDecoder (utf8_stream.h).
  std::string decode_token(TokenId id) const;
  // A whole sequence. SentencePiece's added space prefix is removed from the
  // start; with `skip_special`, control tokens are left out.
  std::string decode(std::span<const TokenId> ids, bool skip_special = false) const;

  TokenizerKind kind() const { return kind_; }
  const Vocab& vocab() const { return *vocab_; }
  size_t vocab_size() const { return vocab_->size(); }
  std::optional<TokenId> bos() const { return vocab_->bos; }
  std::optional<TokenId> eos() const { return vocab_->eos; }
  // One of Vocab::end_of_generation (EOS, EOT, EOM, <|im_end|>, ...): generation stops here.
  bool is_end_of_generation(TokenId id) const;
  bool is_special(TokenId id) const;
  // Whether decode() drops a leading space (SentencePiece prefix).
  bool strips_leading_space() const;

 private:
  // Cuts out the special tokens' texts (with `controls` false only the
  // user-defined ones, which SentencePiece and llama.cpp always match) and
  // encodes the text between.
  void split_special(std::string_view text, bool controls, std::vector<TokenId>& out) const;

  std::unique_ptr<Vocab> vocab_;  // stable address: the model refers to it
  std::unique_ptr<TokenizerModel> model_;
  TokenizerKind kind_ = TokenizerKind::BytePairGpt2;
  // Special token texts with their ids, longest first.
  std::vector<std::pair<std::string, TokenId>> specials_;
};

}  // namespace wgrt::llm
