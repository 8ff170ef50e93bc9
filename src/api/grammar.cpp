// api::parse_grammar over the engine's GBNF parser.
#include "wgrt/grammar.h"

#include "llm/grammar.h"

namespace wgrt::api {

std::shared_ptr<const Grammar> parse_grammar(std::string_view gbnf) { return llm::parse_gbnf(gbnf); }

}  // namespace wgrt::api
