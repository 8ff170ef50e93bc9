// Tokenizers on real vocabularies: the vocabulary-only GGUFs that llama.cpp's
// source ships in models/ (Phi-3, Qwen2, Llama 2 SentencePiece, Llama 3,
// GPT-2, StarCoder/SmolLM), each with its test strings (.inp) and the token
// ids Hugging Face's tokenizer gives them (.out, written by llama.cpp's
// convert_hf_to_gguf_update.py with `tokenizer.encode(text,
// add_special_tokens=False)`). The files come with the llama-cpp-python sdist
// that scripts/build_llama_quantize.sh downloads into the cache (run by
// scripts/setup.sh); they are not copied into this repository. Without them
// the test fails under CI and skips elsewhere.
//
// Qwen2 and Llama 3 are also checked on the 230-string pre-tokenizer corpus
// against the `tokenizers` library loading the same vocabularies
// (tests/fixtures/gguf/real_vocab_ids.txt, tools/fixtures/make_tokenizer_fixtures.py).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "import/gguf/gguf_file.h"
#include "llm/fixture_rows.h"
#include "llm/tokenizer/tokenizer.h"

namespace wgrt::llm {
namespace {

namespace fs = std::filesystem;

fs::path models_dir() {
  if (const char* dir = std::getenv("WGRT_LLAMA_CPP_MODELS")) return dir;
  const char* cache = std::getenv("WGRT_CACHE_DIR");
  const char* home = std::getenv("HOME");
  const fs::path root = cache ? fs::path(cache) : fs::path(home ? home : "/") / ".cache" / "wgrt";
  return root / "llama-quantize-0.3.36" / "src" / "llama_cpp_python-0.3.36" / "vendor" / "llama.cpp" / "models";
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The vocabulary's GGUF, or "" after failing (CI) or skipping (elsewhere) when it is missing.
#define REQUIRE_VOCAB(base)                                                                                 \
  if (!fs::exists(base)) {                                                                                  \
    const std::string why = (base).string() + " is missing: run scripts/build_llama_quantize.sh (setup.sh does)"; \
    const char* ci = std::getenv("CI");                                                                     \
    if (ci && std::string(ci) == "true") FAIL() << why;                                                     \
    GTEST_SKIP() << why;                                                                                    \
  }

fs::path vocab_file(const std::string& name) { return models_dir() / ("ggml-vocab-" + name + ".gguf"); }

class RealVocab : public ::testing::TestWithParam<const char*> {};

TEST_P(RealVocab, EncodeMatchesHfTokenizer) {
  const fs::path base = vocab_file(GetParam());
  REQUIRE_VOCAB(base);
  const gguf::GgufFile file = gguf::GgufFile::open(base.string());
  const Tokenizer tok = Tokenizer::from_gguf(file);

  // .inp: the strings, each followed by "\n__ggml_vocab_test__\n"; .out: one
  // line of ids per string.
  const std::string sep = "\n__ggml_vocab_test__\n";
  const std::string inp = read_text(base.string() + ".inp");
  std::vector<std::string> texts;
  for (size_t at = 0, next; (next = inp.find(sep, at)) != std::string::npos; at = next + sep.size()) {
    texts.push_back(inp.substr(at, next - at));
  }
  std::istringstream out(read_text(base.string() + ".out"));
  size_t checked = 0;
  for (const std::string& text : texts) {
    std::string line;
    ASSERT_TRUE(std::getline(out, line)) << "fewer id lines than strings";
    std::vector<TokenId> want;
    std::istringstream ids(line);
    for (TokenId id; ids >> id;) want.push_back(id);
    EXPECT_EQ(tok.encode(text, /*add_special=*/false), want) << GetParam() << ": '" << text << "'";
    ++checked;
  }
  EXPECT_GE(checked, 40u);
}

TEST(RealVocabCorpus, Qwen2AndLlama3MatchTokenizersOn230Strings) {
  const auto rows = test::fixture_rows(test::fixture_path("gguf/real_vocab_ids.txt"));
  ASSERT_EQ(rows.size(), 460u);
  for (const char* name : {"qwen2", "llama-bpe"}) {
    const fs::path base = vocab_file(name);
    REQUIRE_VOCAB(base);
    const gguf::GgufFile file = gguf::GgufFile::open(base.string());
    const Tokenizer tok = Tokenizer::from_gguf(file);
    size_t checked = 0;
    for (const auto& r : rows) {
      if (r[0] != name) continue;
      std::vector<TokenId> want;
      std::istringstream ids(r.size() > 2 ? r[2] : "");
      for (TokenId id; ids >> id;) want.push_back(id);
      const std::string text = test::unhex(r[1]);
      EXPECT_EQ(tok.encode(text, /*add_special=*/false), want) << name << ": '" << text << "'";
      ++checked;
    }
    EXPECT_EQ(checked, 230u) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(LlamaCppVocabs, RealVocab,
                         ::testing::Values("phi-3", "qwen2", "llama-spm", "llama-bpe", "gpt-2", "starcoder"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

}  // namespace
}  // namespace wgrt::llm
