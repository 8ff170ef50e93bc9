#include "llm/token_trie.h"

#include <algorithm>
#include <utility>

namespace wgrt::llm {

TokenTrie::TokenTrie(std::span<const std::string> pieces, const std::vector<bool>& include) {
  std::vector<int32_t> ids;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (i < include.size() && include[i] && !pieces[i].empty()) ids.push_back(int32_t(i));
  }
  // Byte order (std::string compares as unsigned bytes): a prefix first.
  std::sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) { return pieces[size_t(a)] < pieces[size_t(b)]; });
  build(pieces, ids, 0, ids.size(), 0);
  subtree_end_.resize(nodes_.size());
  for (size_t i = nodes_.size(); i-- > 0;) {  // children come after their parent
    uint32_t end = uint32_t(i) + 1;
    const Node& n = nodes_[i];
    for (uint32_t e = n.first_edge; e < n.first_edge + n.edges; ++e) end = std::max(end, subtree_end_[edges_[e].child]);
    subtree_end_[i] = end;
  }
}

// The node of ids[lo, hi), which share their first `depth` bytes, and its
// subtree. Nodes are addressed by index (the vectors grow while children
// are built), and a node's edges are reserved before its children are.
uint32_t TokenTrie::build(std::span<const std::string> pieces, const std::vector<int32_t>& ids, size_t lo,
                          size_t hi, size_t depth) {
  const auto node = uint32_t(nodes_.size());
  nodes_.push_back({});
  nodes_[node].first_token = uint32_t(tokens_.size());
  size_t i = lo;
  while (i < hi && pieces[size_t(ids[i])].size() == depth) tokens_.push_back(ids[i++]);
  nodes_[node].tokens = uint32_t(tokens_.size()) - nodes_[node].first_token;
  const auto byte_at = [&](size_t k) { return static_cast<uint8_t>(pieces[size_t(ids[k])][depth]); };
  std::vector<std::pair<size_t, size_t>> runs;  // of one byte at `depth`
  for (size_t j = i; j < hi;) {
    size_t k = j;
    while (k < hi && byte_at(k) == byte_at(j)) ++k;
    runs.emplace_back(j, k);
    j = k;
  }
  const auto first = uint32_t(edges_.size());
  nodes_[node].first_edge = first;
  nodes_[node].edges = uint32_t(runs.size());
  edges_.resize(first + runs.size());
  for (size_t r = 0; r < runs.size(); ++r) {
    const uint32_t child = build(pieces, ids, runs[r].first, runs[r].second, depth + 1);
    edges_[first + r] = {byte_at(runs[r].first), child};
  }
  return node;
}

}  // namespace wgrt::llm
