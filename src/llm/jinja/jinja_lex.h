// The Jinja lexer, private to src/llm/jinja: template source cut into text
// and tags (with Jinja's whitespace control, trim_blocks and lstrip_blocks
// applied), and a tag's text cut into tokens. jinja_parse.cpp builds the
// syntax tree from these.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "llm/jinja/jinja.h"

namespace wgrt::llm::jinja {

struct Piece {
  enum class Kind { Text, Output, Statement } kind;
  std::string body;
  int line;
};

struct Token {
  enum class Kind { Name, Number, String, Op, End } kind;
  std::string text;
  Value number;
};

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The text and tags of a template, in order. Error(InvalidArgument) naming
// the line of a tag that is not closed.
std::vector<Piece> split_source(std::string_view src);
// The tokens of one tag's text (ending with an End token). Error(InvalidArgument)
// naming `line` for a character that starts no token.
std::vector<Token> tokenize(const std::string& s, int line);

}  // namespace wgrt::llm::jinja
