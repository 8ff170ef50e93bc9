// What a constrained step's mask costs on the host (issue 35): the time of
// TokenConstraint::allowed() at each token of a text the constraint allows,
// for the three constraints of bench/constrained_decoding.sh (any JSON
// object, a schema of records, a GBNF run of words), over a GGUF file's
// vocabulary. With GPU sampling the mask is found while the GPU runs the
// forward pass, so a step is bound by whichever takes longer.
// Usage: wgrt_mask_probe MODEL.gguf
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "import/gguf/gguf_file.h"
#include "llm/grammar.h"
#include "llm/json_constraint.h"
#include "llm/json_schema.h"
#include "llm/tokenizer/tokenizer.h"
#include "wgrt/error.h"
#include "wgrt/json_schema.h"

namespace {

using namespace wgrt;
using Clock = std::chrono::steady_clock;

std::string records(int n) {
  std::string s = "{\"items\": [";
  for (int i = 0; i < n; ++i) {
    if (i > 0) s += ", ";
    s += "{\"name\": \"item number " + std::to_string(i) + "\", \"kind\": \"";
    s += "abc"[i % 3];
    s += "\", \"n\": " + std::to_string(i * 37) + "}";
  }
  return s + "]}";
}

std::string words(int n) {
  const char* pool[] = {"apple", "river", "stone", "light", "cloud", "green", "house", "bird"};
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? " " : "") + std::string(pool[i % 8]);
  return s;
}

// Milliseconds of allowed() before each token of `text` (as tokenized), the
// token then accepted.
void probe(const char* name, llm::TokenConstraint& c, const llm::Tokenizer& tok, const std::string& text) {
  const size_t vocab = size_t(tok.vocab_size());
  std::vector<uint8_t> allowed;
  std::vector<double> ms;
  size_t refused = 0;
  for (llm::TokenId id : tok.encode(text, false)) {
    const auto t0 = Clock::now();
    c.allowed(vocab, allowed);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    refused += !allowed[size_t(id)];  // the tokenizer's split of a valid text may still be allowed
    c.accept(id);
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (double x : ms) sum += x;
  std::printf("| %s | %zu | %.3f | %.3f | %.3f | %zu |\n", name, ms.size(), sum / double(ms.size()),
              sorted[sorted.size() / 2], sorted.back(), refused);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODEL.gguf\n", argv[0]);
    return 2;
  }
  try {
    const gguf::GgufFile file = gguf::GgufFile::open(argv[1]);
    const llm::Tokenizer tok = llm::Tokenizer::from_gguf(file);
    const size_t vocab = size_t(tok.vocab_size());
    const auto schema = api::parse_json_schema(R"({"type": "object", "properties": {"items": {"type": "array",
      "minItems": 4, "items": {"type": "object", "properties": {"name": {"type": "string"},
      "kind": {"enum": ["a", "b", "c"]}, "n": {"type": "integer"}}, "required": ["name", "kind", "n"],
      "additionalProperties": false}}}, "required": ["items"], "additionalProperties": false})");
    const auto grammar = llm::parse_gbnf("root ::= word (\" \" word){60,}\nword ::= [a-z]{1,8}\n");
    std::printf("vocabulary %zu tokens; ms per mask\n\n", vocab);
    std::printf("| constraint | masks | mean | median | max | tokens of the text refused |\n");
    std::printf("| --- | ---: | ---: | ---: | ---: | ---: |\n");
    // One set of token texts for all three, as a model shares it (LlmModel::token_texts).
    const auto texts = std::make_shared<const llm::TokenTexts>(tok, vocab);
    llm::JsonObjectConstraint json(texts, llm::JsonObjectPrefix());
    probe("json_object", json, tok, records(4));
    llm::JsonSchemaConstraint records_schema(texts, llm::JsonSchemaMatcher(schema));
    probe("json_schema", records_schema, tok, records(4));
    llm::GrammarConstraint gbnf(texts, llm::GrammarMatcher(grammar));
    probe("grammar", gbnf, tok, words(64));
  } catch (const wgrt::Error& e) {
    std::fprintf(stderr, "wgrt_mask_probe: %s\n", e.what());
    return 1;
  }
  return 0;
}
