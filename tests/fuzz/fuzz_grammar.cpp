// GBNF grammars (llm/grammar.h): the input up to its first NUL byte is
// parsed as a grammar; what follows is fed to a matcher of it in pieces of
// 1 to 4 bytes (accepts, then feed), as a constraint sees tokens.
#include <cstring>

#include "fuzz_util.h"
#include "llm/grammar.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wgrt;
  const char* chars = reinterpret_cast<const char*>(data);
  const void* nul = std::memchr(data, 0, size);
  const size_t split = nul ? size_t(static_cast<const uint8_t*>(nul) - data) : size;
  const std::string_view grammar(chars, split);
  const std::string_view text = split < size ? std::string_view(chars + split + 1, size - split - 1) : std::string_view();
  return fuzz::run([&] {
    llm::GrammarMatcher m(llm::parse_gbnf(grammar));
    for (size_t i = 0, piece = 1; i < text.size(); i += piece, piece = piece % 4 + 1) {
      const std::string_view bytes = text.substr(i, piece);
      if (m.accepts(bytes) != m.feed(bytes)) __builtin_trap();  // accepts must say what feed does
      m.complete();
    }
  });
}
