#include "llm/tokenizer/spm_tokenizer.h"

#include <cstdio>
#include <queue>

#include "llm/tokenizer/unicode.h"
#include "wgrt/error.h"

namespace wgrt::llm {
namespace {

constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581 ▁

struct Symbol {
  size_t start, size;  // bytes in the normalized text
  int prev, next;      // neighbours in the list (-1: none)
};

struct Candidate {
  float score;
  int left, right;
  size_t size;  // bytes of the merged piece, to spot stale entries
  bool operator<(const Candidate& o) const {
    // Highest score first; on ties the leftmost.
    return score < o.score || (score == o.score && left > o.left);
  }
};

}  // namespace

SpmTokenizer::SpmTokenizer(const Vocab& vocab) : vocab_(vocab) {
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_tokens_[b] = vocab.find(name).value_or(-1);
  }
}

std::optional<TokenId> SpmTokenizer::mergeable(std::string_view piece) const {
  const auto id = vocab_.find(piece);
  if (!id) return std::nullopt;
  const TokenType t = vocab_.type(*id);
  if (t == TokenType::Normal || t == TokenType::UserDefined || t == TokenType::Unused ||
      t == TokenType::Undefined) {
    return id;
  }
  return std::nullopt;
}

void SpmTokenizer::encode(std::string_view text, bool at_start, std::vector<TokenId>& out) const {
  std::string s;
  if (at_start && vocab_.add_space_prefix) s += kSpace;
  for (char c : text) {
    if (c == ' ') s += kSpace;
    else s += c;
  }
  if (s.empty()) return;

  std::vector<Symbol> sym;
  for (size_t i = 0; i < s.size();) {
    const size_t n = decode_utf8(s, i).size;
    const int k = static_cast<int>(sym.size());
    sym.push_back({i, n, k - 1, -1});
    if (k > 0) sym[k - 1].next = k;
    i += n;
  }

  std::priority_queue<Candidate> queue;
  auto consider = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const size_t size = sym[left].size + sym[right].size;
    if (auto id = mergeable(std::string_view(s).substr(sym[left].start, size))) {
      queue.push({vocab_.score(*id), left, right, size});
    }
  };
  for (int i = 0; i + 1 < static_cast<int>(sym.size()); ++i) consider(i, i + 1);

  while (!queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    Symbol& l = sym[c.left];
    Symbol& r = sym[c.right];
    // Stale: one side was merged away or grew since this entry was made.
    if (l.size == 0 || r.size == 0 || l.next != c.right || l.size + r.size != c.size) continue;
    l.size += r.size;
    r.size = 0;
    l.next = r.next;
    if (r.next >= 0) sym[r.next].prev = c.left;
    consider(l.prev, c.left);
    consider(c.left, l.next);
  }

  for (int i = 0; i >= 0 && i < static_cast<int>(sym.size()); i = sym[i].next) {
    const std::string_view piece = std::string_view(s).substr(sym[i].start, sym[i].size);
    if (auto id = vocab_.find(piece); id && vocab_.type(*id) != TokenType::Byte) {
      out.push_back(*id);
      continue;
    }
    for (char c : piece) {
      const TokenId b = byte_tokens_[static_cast<uint8_t>(c)];
      if (b >= 0) {
        out.push_back(b);
      } else if (vocab_.unk) {
        out.push_back(*vocab_.unk);
        break;  // one unknown token for the whole piece
      } else {
        throw Error(ErrorCode::InvalidArgument,
                    "SentencePiece vocabulary has no token for '" + std::string(piece) +
                        "', no byte fallback and no unknown token");
      }
    }
  }
}

std::string SpmTokenizer::token_bytes(TokenId id) const {
  const std::string& text = vocab_.tokens[static_cast<size_t>(id)];
  if (vocab_.type(id) == TokenType::Byte) {
    unsigned value = 0;
    if (text.size() == 6 && std::sscanf(text.c_str(), "<0x%02X>", &value) == 1) {
      return std::string(1, static_cast<char>(value));
    }
  }
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, kSpace.size(), kSpace) == 0) {
      out += ' ';
      i += kSpace.size();
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace wgrt::llm
