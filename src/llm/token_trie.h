// A vocabulary's token texts as a byte trie, for masking a constraint:
// walking it with a matcher feeds each shared prefix once, and a byte the
// matcher refuses cuts off every token below it. Most of a vocabulary
// shares its first bytes with many others, and at most places of a JSON
// text or a grammar only a few first bytes can come, so a mask visits a
// small part of the trie instead of feeding every token's whole text.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/worker_pool.h"

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

  // The same with the walk split across `pool`'s threads: the subtrees
  // under the first bytes the matcher accepts (the heaviest split further)
  // go to the threads in about equal shares of nodes. on_token is called
  // from several threads at once, never twice for one id.
  template <typename Matcher, typename OnToken>
  void walk(const Matcher& matcher, OnToken&& on_token, WorkerPool& pool) const {
    if (pool.threads() < 2) return walk(matcher, on_token);
    std::vector<Subtree<Matcher>> parts;
    split(0, matcher, on_token, parts, nodes_.size() / (4 * pool.threads()), 0);
    std::vector<std::vector<const Subtree<Matcher>*>> shares(pool.threads());
    std::vector<size_t> load(pool.threads(), 0);
    std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.size > b.size; });
    for (const auto& part : parts) {  // the largest first, each to the least loaded share
      const size_t i = size_t(std::min_element(load.begin(), load.end()) - load.begin());
      shares[i].push_back(&part);
      load[i] += part.size;
    }
    std::vector<std::function<void()>> tasks;
    for (const auto& share : shares) {
      if (share.empty()) continue;
      tasks.push_back([this, &share, &on_token] {
        for (const auto* part : share) walk_from(part->node, part->matcher, on_token);
      });
    }
    TaskGroup group;
    pool.submit(std::move(tasks), group);
    group.wait();
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

  // A subtree left to walk, and the matcher that has read the bytes above it.
  template <typename Matcher>
  struct Subtree {
    uint32_t node;
    Matcher matcher;
    size_t size;  // nodes in it
  };
  // Nodes are numbered in depth-first order, so a subtree is a run of them.
  size_t subtree_size(uint32_t node) const { return subtree_end_[node] - node; }

  // Feeds the byte of each edge of `node` to a copy of `at`, reports the
  // tokens that end at the child, and hands each child with edges of its
  // own to below(child, fed matcher): the walk and its split share it.
  template <typename Matcher, typename OnToken, typename Below>
  void feed_edges(uint32_t node, const Matcher& at, OnToken& on_token, Below&& below) const {
    const Node& n = nodes_[node];
    for (uint32_t e = n.first_edge; e < n.first_edge + n.edges; ++e) {
      const char c = static_cast<char>(edges_[e].byte);
      Matcher next = at;
      if (!next.feed(std::string_view(&c, 1))) continue;
      const Node& child = nodes_[edges_[e].child];
      for (uint32_t t = child.first_token; t < child.first_token + child.tokens; ++t) on_token(tokens_[t]);
      if (child.edges > 0) below(edges_[e].child, std::move(next));
    }
  }

  // Lists the subtrees below `node` for the threads; those larger than
  // `most` nodes are split again, up to 3 bytes deep.
  template <typename Matcher, typename OnToken>
  void split(uint32_t node, const Matcher& at, OnToken& on_token, std::vector<Subtree<Matcher>>& out, size_t most,
             int depth) const {
    feed_edges(node, at, on_token, [&](uint32_t child, Matcher next) {
      if (subtree_size(child) > most && depth < 2) {
        split(child, next, on_token, out, most, depth + 1);
      } else {
        out.push_back({child, std::move(next), subtree_size(child)});
      }
    });
  }

  template <typename Matcher, typename OnToken>
  void walk_from(uint32_t node, const Matcher& at, OnToken& on_token) const {
    feed_edges(node, at, on_token, [&](uint32_t child, const Matcher& next) { walk_from(child, next, on_token); });
  }

  std::vector<Node> nodes_;  // node 0: the empty prefix
  std::vector<uint32_t> subtree_end_;  // per node: the first node past its subtree
  std::vector<Edge> edges_;
  std::vector<int32_t> tokens_;
};

}  // namespace wgrt::llm
