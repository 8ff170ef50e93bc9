// Tokenizers of the fixtures (SentencePiece, byte-level BPE with and without
// merges): arbitrary bytes encoded, arbitrary ids decoded, whole and streamed
// token by token, and raw bytes through the streaming UTF-8 decoder.
// Byte 0 picks the tokenizer, byte 1 the mode; the rest is the input.
#include <cstring>
#include <memory>

#include "fuzz_util.h"
#include "import/gguf/gguf_file.h"
#include "llm/tokenizer/tokenizer.h"
#include "llm/tokenizer/utf8_stream.h"

namespace {

using namespace wgrt;

std::vector<std::unique_ptr<llm::Tokenizer>> load_tokenizers() {
  std::vector<std::unique_ptr<llm::Tokenizer>> out;
  for (const char* path : {"gguf/spm_tiny.gguf", "llama/byte_tokenizer.gguf", "gguf/tiny_llama_q4_0.gguf"}) {
    const auto file = gguf::GgufFile::open(fuzz::fixture(path));
    out.push_back(std::make_unique<llm::Tokenizer>(llm::Tokenizer::from_gguf(file)));
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto tokenizers = load_tokenizers();
  if (size < 2) return 0;
  const llm::Tokenizer& tok = *tokenizers[data[0] % tokenizers.size()];
  const uint8_t mode = data[1];
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
  std::vector<llm::TokenId> ids(text.size() / 4);
  if (!ids.empty()) std::memcpy(ids.data(), text.data(), ids.size() * 4);
  // Ids mostly inside the vocabulary (those decode), sometimes raw (errors).
  if (mode & 4) {
    for (auto& id : ids) id = llm::TokenId(uint32_t(id) % (tok.vocab_size() + 2));
  }
  return fuzz::run([&] {
    switch (mode & 3) {
      case 0: {
        const auto encoded = tok.encode(text, mode & 8, mode & 16);
        tok.decode(encoded);  // every id encode makes must decode
        break;
      }
      case 1:
        fuzz::run([&] { tok.decode(ids, mode & 8); });
        break;
      case 2: {
        llm::StreamDecoder stream(tok);
        for (llm::TokenId id : ids) stream.push(id);
        stream.finish();
        break;
      }
      case 3: {
        llm::Utf8Buffer buf;
        for (size_t i = 0; i < text.size(); i += 1 + (mode >> 5)) buf.push(text.substr(i, 1 + (mode >> 5)));
        buf.flush();
        break;
      }
    }
  });
}
