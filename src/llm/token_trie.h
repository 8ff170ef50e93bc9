// A vocabulary's token texts as a byte trie, for masking a constraint:
// walking it with a matcher feeds each shared prefix once, and a byte the
// matcher refuses cuts off every token below it. Most of a vocabulary
// shares its first bytes with many others, and at most places of a JSON
// text or a grammar only a few first bytes can come, so a mask visits a
// small part of the trie instead of feeding every token's whole text.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wgrt::llm {

class TokenTrie {
 public:
  // Token i is pieces[i]; those with `include[i]` false (or an empty text)
  // are left out.
  TokenTrie(std::span<const std::string> pieces, const std::vector<bool>& include);

  // Calls on_token(id) for every token whose whole text `matcher` accepts
  // (Matcher::feed(bytes) -> bool, false leaving it unchanged; copyable).
  // The matcher passed is not changed.
  template <typename Matcher, typename OnToken>
  void walk(const Matcher& matcher, OnToken&& on_token) const {
    walk_from(0, matcher, on_token);
  }

  size_t nodes() const { return nodes_.size(); }

 private:
  struct Node {
    uint32_t first_edge = 0, edges = 0;    // into edges_, by byte
    uint32_t first_token = 0, tokens = 0;  // into tokens_: those ending here
  };
  struct Edge {
    uint8_t byte;
    uint32_t child;
  };

  uint32_t build(std::span<const std::string> pieces, const std::vector<int32_t>& ids, size_t lo, size_t hi,
                 size_t depth);

  template <typename Matcher, typename OnToken>
  void walk_from(uint32_t node, const Matcher& at, OnToken& on_token) const {
    const Node& n = nodes_[node];
    for (uint32_t e = n.first_edge; e < n.first_edge + n.edges; ++e) {
      const char c = static_cast<char>(edges_[e].byte);
      Matcher next = at;
      if (!next.feed(std::string_view(&c, 1))) continue;
      const Node& child = nodes_[edges_[e].child];
      for (uint32_t t = child.first_token; t < child.first_token + child.tokens; ++t) on_token(tokens_[t]);
      if (child.edges > 0) walk_from(edges_[e].child, next, on_token);
    }
  }

  std::vector<Node> nodes_;  // node 0: the empty prefix
  std::vector<Edge> edges_;
  std::vector<int32_t> tokens_;
};

}  // namespace wgrt::llm
