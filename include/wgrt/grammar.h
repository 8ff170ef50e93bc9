// A GBNF grammar (llama.cpp's grammar format), compiled: what a request's
// `grammar` constrains a generation to (GenerateOptions::grammar): tokens
// that cannot continue a sentence of the grammar are masked before each
// draw. The format: README's server section.
#pragma once

#include <memory>
#include <string_view>

namespace wgrt {

struct Grammar;  // rules of alternatives (the engine's llm/grammar.h)

namespace api {

// Compiles GBNF text (its `root` rule is where text starts). Throws
// Error(InvalidArgument) naming the line, column and what is wrong: a
// syntax error, an undefined or twice-defined rule, left recursion.
std::shared_ptr<const Grammar> parse_grammar(std::string_view gbnf);

}  // namespace api
}  // namespace wgrt
