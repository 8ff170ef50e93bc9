// The token trie (llm/token_trie.h) masks exactly as feeding every token's
// text on its own does: for each matcher (JSON object, JSON schema, GBNF)
// at each byte of a text it allows, over SmolLM2's real vocabulary of
// 49,152 tokens (multi-byte UTF-8 pieces and shared prefixes included).
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "core/worker_pool.h"

#include "import/gguf/gguf_file.h"
#include "llm/default_model.h"
#include "llm/grammar.h"
#include "llm/json_constraint.h"
#include "llm/json_prefix.h"
#include "llm/json_schema.h"
#include "wgrt/json_schema.h"

namespace wgrt::llm {
namespace {

const TokenTexts& smollm2_texts() {
  static const gguf::GgufFile file = gguf::GgufFile::open(default_model_path());
  static const Tokenizer tok = Tokenizer::from_gguf(file);
  static const TokenTexts texts(tok, tok.vocab_size());
  return texts;
}

// At every prefix of `text`: the tokens the trie finds equal those whose
// whole piece the matcher accepts on its own, walked on one thread and
// split across three (each token reported once).
template <typename Matcher>
void expect_same_masks(Matcher m, const std::string& text) {
  const TokenTexts& t = smollm2_texts();
  WorkerPool pool(3);
  size_t checked = 0;
  for (size_t at = 0; at <= text.size(); at += 3) {
    std::vector<uint8_t> by_trie(t.pieces.size(), 0), by_token(t.pieces.size(), 0);
    t.trie.walk(m, [&](int32_t id) { by_trie[size_t(id)] = 1; });
    std::vector<std::atomic<int>> split_walk(t.pieces.size());
    t.trie.walk(m, [&](int32_t id) { split_walk[size_t(id)] += 1; }, pool);
    for (size_t i = 0; i < t.pieces.size(); ++i) {
      ASSERT_EQ(split_walk[i].load(), by_trie[i]) << "token " << i << " after '" << text.substr(0, at) << "'";
    }
    size_t allowed = 0;
    for (size_t i = 0; i < t.pieces.size(); ++i) {
      by_token[i] = !t.ends[i] && !t.pieces[i].empty() && m.accepts(t.pieces[i]);
      allowed += by_token[i];
    }
    ASSERT_EQ(by_trie, by_token) << "after '" << text.substr(0, at) << "'";
    checked += allowed;
    if (at < text.size()) ASSERT_TRUE(m.feed(text.substr(at, std::min<size_t>(3, text.size() - at)))) << at;
  }
  EXPECT_GT(checked, 0u) << "some token is allowed somewhere";
}

TEST(TokenTrie, HoldsEveryTokenOnce) {
  const TokenTexts& t = smollm2_texts();
  EXPECT_GT(t.trie.nodes(), 10000u);
  std::vector<int> seen(t.pieces.size(), 0);
  struct Everything {
    bool feed(std::string_view) { return true; }
  };
  t.trie.walk(Everything{}, [&](int32_t id) { seen[size_t(id)] += 1; });
  WorkerPool pool(4);
  std::vector<std::atomic<int>> split_walk(t.pieces.size());
  t.trie.walk(Everything{}, [&](int32_t id) { split_walk[size_t(id)] += 1; }, pool);
  for (size_t i = 0; i < t.pieces.size(); ++i) {
    ASSERT_EQ(seen[i], (t.pieces[i].empty() || t.ends[i]) ? 0 : 1) << "token " << i << " '" << t.pieces[i] << "'";
    ASSERT_EQ(split_walk[i].load(), seen[i]) << "token " << i << ", the walk split across threads";
  }
}

TEST(TokenTrie, JsonObjectMasksMatchTokenByToken) {
  expect_same_masks(JsonObjectPrefix(), R"({"a": [1, -2.5e3, true, null], "b": {"c": "x\u00e9y"}, "d": "caf\u00e9"})");
}

TEST(TokenTrie, JsonSchemaMasksMatchTokenByToken) {
  const auto schema = api::parse_json_schema(
      R"({"type":"object","properties":{"kind":{"enum":["alpha","beta"]},"n":{"type":"integer"},)"
      R"("tags":{"type":"array","items":{"type":"string","maxLength":4},"maxItems":2}},)"
      R"("required":["kind","n","tags"],"additionalProperties":false})");
  expect_same_masks(JsonSchemaMatcher(schema), R"({"kind": "beta", "n": -42, "tags": ["ab", "cdé"]})");
}

TEST(TokenTrie, GrammarMasksMatchTokenByToken) {
  const auto g = parse_gbnf("root ::= word (\" \" word){2,} \".\"\nword ::= [a-zé]{1,8}\n");
  expect_same_masks(GrammarMatcher(g), "the café is open.");
}

}  // namespace
}  // namespace wgrt::llm
