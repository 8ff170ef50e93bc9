#include "llm/tokenizer/tokenizer.h"

#include <algorithm>

#include "import/gguf/gguf_file.h"
#include "llm/tokenizer/bpe_tokenizer.h"
#include "llm/tokenizer/pretokenizer.h"
#include "llm/tokenizer/spm_tokenizer.h"
#include "wgrt/error.h"

namespace wgrt::llm {

Tokenizer Tokenizer::from_gguf(const gguf::GgufFile& file) {
  try {
    return Tokenizer(Vocab::from_gguf(file));
  } catch (const Error& e) {
    throw e.with_context("tokenizer of '" + file.name() + "'");
  }
}

Tokenizer::Tokenizer(Vocab vocab) : vocab_(std::make_unique<Vocab>(std::move(vocab))) {
  if (vocab_->model == "gpt2") {
    kind_ = TokenizerKind::BytePairGpt2;
    model_ = std::make_unique<BpeTokenizer>(*vocab_, pre_tokenizer_for(vocab_->pre));
  } else if (vocab_->model == "llama") {
    kind_ = TokenizerKind::SentencePiece;
    model_ = std::make_unique<SpmTokenizer>(*vocab_);
  } else {
    throw Error(ErrorCode::NotSupported, "tokenizer.ggml.model '" + vocab_->model +
                                             "' is not supported (wgrt has 'gpt2' and 'llama')");
  }
  for (size_t i = 0; i < vocab_->size(); ++i) {
    const TokenType t = vocab_->types[i];
    if ((t == TokenType::Control || t == TokenType::UserDefined) && !vocab_->tokens[i].empty()) {
      specials_.emplace_back(vocab_->tokens[i], static_cast<TokenId>(i));
    }
  }
  std::stable_sort(specials_.begin(), specials_.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

void Tokenizer::split_special(std::string_view text, bool controls, std::vector<TokenId>& out) const {
  size_t plain_start = 0;
  auto flush = [&](size_t end) {
    if (end > plain_start) {
      model_->encode(text.substr(plain_start, end - plain_start), plain_start == 0, out);
    }
  };
  for (size_t i = 0; i < text.size();) {
    // Special tokens all start with a marker character such as '<' or '[';
    // trying each one at each position is fast enough for prompts.
    const std::pair<std::string, TokenId>* hit = nullptr;
    for (const auto& s : specials_) {
      if (!controls && vocab_->type(s.second) != TokenType::UserDefined) continue;
      if (text.compare(i, s.first.size(), s.first) == 0) {
        hit = &s;
        break;  // longest first
      }
    }
    if (hit == nullptr) {
      ++i;
      continue;
    }
    flush(i);
    out.push_back(hit->second);
    i += hit->first.size();
    plain_start = i;
  }
  flush(text.size());
}

std::vector<TokenId> Tokenizer::encode(std::string_view text, bool add_special,
                                       bool parse_special) const {
  std::vector<TokenId> out;
  if (add_special && vocab_->add_bos && vocab_->bos) out.push_back(*vocab_->bos);
  if (!specials_.empty()) {
    split_special(text, parse_special, out);
  } else if (!text.empty()) {
    model_->encode(text, true, out);
  }
  if (add_special && vocab_->add_eos && vocab_->eos) out.push_back(*vocab_->eos);
  return out;
}

bool Tokenizer::is_special(TokenId id) const {
  if (!vocab_->valid(id)) return false;
  const TokenType t = vocab_->type(id);
  return t == TokenType::Control || t == TokenType::UserDefined;
}

std::string Tokenizer::decode_token(TokenId id) const {
  if (!vocab_->valid(id)) {
    throw Error(ErrorCode::InvalidArgument, "token id " + std::to_string(id) +
                                                " is outside the vocabulary (size " +
                                                std::to_string(vocab_->size()) + ")");
  }
  if (is_special(id)) return vocab_->tokens[static_cast<size_t>(id)];
  return model_->token_bytes(id);
}

std::string Tokenizer::decode(std::span<const TokenId> ids, bool skip_special) const {
  std::string out;
  bool first = true;
  for (TokenId id : ids) {
    if (skip_special && vocab_->valid(id) && vocab_->type(id) == TokenType::Control) continue;
    std::string piece = decode_token(id);
    if (first && !is_special(id)) {
      if (strips_leading_space() && !piece.empty() && piece[0] == ' ') piece.erase(0, 1);
      first = false;
    }
    out += piece;
  }
  return out;
}

bool Tokenizer::is_end_of_generation(TokenId id) const {
  return std::binary_search(vocab_->end_of_generation.begin(), vocab_->end_of_generation.end(), id);
}

bool Tokenizer::strips_leading_space() const {
  return kind_ == TokenizerKind::SentencePiece && vocab_->add_space_prefix;
}

}  // namespace wgrt::llm
