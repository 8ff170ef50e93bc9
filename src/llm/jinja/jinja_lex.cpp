// The Jinja lexer (jinja_lex.h).
#include "llm/jinja/jinja_lex.h"

#include <cctype>
#include <cstdlib>

#include "llm/jinja/jinja_values.h"

namespace wgrt::llm::jinja {

namespace {

// Where the tag opened at `from` closes (the index of `close`), skipping string literals.
size_t find_close(std::string_view src, size_t from, std::string_view close, int line) {
  for (size_t i = from; i < src.size(); ++i) {
    const char c = src[i];
    if (c == '\'' || c == '"') {
      for (++i; i < src.size() && src[i] != c; ++i) {
        if (src[i] == '\\') ++i;
      }
      continue;
    }
    if (src.compare(i, close.size(), close) == 0) return i;
  }
  fail(line, "tag is not closed (expected '" + std::string(close) + "')");
}

}  // namespace

std::vector<Piece> split_source(std::string_view src) {
  std::vector<Piece> pieces;
  size_t pos = 0;
  int line = 1;
  bool strip_next = false, trim_newline = false;
  while (pos <= src.size()) {
    size_t open = src.find('{', pos);
    while (open != std::string_view::npos && open + 1 < src.size() && src[open + 1] != '{' && src[open + 1] != '%' &&
           src[open + 1] != '#') {
      open = src.find('{', open + 1);
    }
    if (open + 1 >= src.size()) open = std::string_view::npos;
    std::string text(src.substr(pos, open == std::string_view::npos ? std::string_view::npos : open - pos));
    if (strip_next) {
      size_t k = 0;
      while (k < text.size() && is_space(text[k])) ++k;
      text.erase(0, k);
    } else if (trim_newline) {
      if (text.rfind("\r\n", 0) == 0)
        text.erase(0, 2);
      else if (!text.empty() && text[0] == '\n')
        text.erase(0, 1);
    }
    if (open == std::string_view::npos) {
      if (!text.empty()) pieces.push_back({Piece::Kind::Text, text, line});
      break;
    }
    const char type = src[open + 1];
    const bool block = type != '{';
    size_t body = open + 2;
    bool strip_before = false, keep_indent = false;
    if (body < src.size() && (src[body] == '-' || src[body] == '+')) {
      strip_before = src[body] == '-';
      keep_indent = src[body] == '+';
      ++body;
    }
    if (strip_before) {
      while (!text.empty() && is_space(text.back())) text.pop_back();
    } else if (block && !keep_indent) {  // lstrip_blocks: indentation before a block tag
      const size_t nl = text.find_last_of('\n');
      const size_t start = nl == std::string::npos ? 0 : nl + 1;
      bool blank = true;
      for (size_t k = start; k < text.size(); ++k) blank = blank && (text[k] == ' ' || text[k] == '\t');
      // Only at the start of a source line (a newline trim_blocks removed still counts).
      const bool line_start = src.substr(pos, open - pos).find('\n') != std::string_view::npos || pos == 0;
      if (blank && line_start) text.erase(start);
    }
    if (!text.empty()) pieces.push_back({Piece::Kind::Text, text, line});
    for (char c : src.substr(pos, open - pos)) line += c == '\n';
    const std::string_view close = type == '{' ? "}}" : type == '%' ? "%}" : "#}";
    size_t end = type == '#' ? src.find("#}", body) : find_close(src, body, close, line);
    if (end == std::string_view::npos) fail(line, "comment is not closed");
    size_t body_end = end;
    strip_next = body_end > body && src[body_end - 1] == '-';
    if (strip_next) --body_end;
    trim_newline = block;  // trim_blocks: the newline after a block tag goes
    if (type != '#') {
      pieces.push_back({type == '{' ? Piece::Kind::Output : Piece::Kind::Statement,
                        std::string(src.substr(body, body_end - body)), line});
    }
    for (char c : src.substr(open, end + 2 - open)) line += c == '\n';
    pos = end + 2;
  }
  return pieces;
}

std::vector<Token> tokenize(const std::string& s, int line) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (is_space(c)) {
      ++i;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.push_back({Token::Kind::Name, s.substr(i, j - i), {}});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      const bool is_float = j + 1 < s.size() && s[j] == '.' && std::isdigit(static_cast<unsigned char>(s[j + 1]));
      if (is_float) {
        ++j;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      }
      const std::string text = s.substr(i, j - i);
      out.push_back({Token::Kind::Number, text,
                     is_float ? Value::number(std::strtod(text.c_str(), nullptr))
                              : Value::integer(std::strtoll(text.c_str(), nullptr, 10))});
      i = j;
    } else if (c == '\'' || c == '"') {
      std::string v;
      size_t j = i + 1;
      for (; j < s.size() && s[j] != c; ++j) {
        if (s[j] != '\\' || j + 1 >= s.size()) {
          v += s[j];
          continue;
        }
        const char e = s[++j];
        v += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
      }
      if (j >= s.size()) fail(line, "string literal is not closed");
      out.push_back({Token::Kind::String, v, {}});
      i = j + 1;
    } else {
      static const char* kTwo[] = {"==", "!=", "<=", ">=", "//", "**"};
      std::string op(1, c);
      for (const char* t : kTwo) {
        if (s.compare(i, 2, t) == 0) op = t;
      }
      if (op.size() == 1 && std::string_view("+-*/%~<>=()[]{},.:|").find(c) == std::string_view::npos) {
        fail(line, std::string("unexpected character '") + c + "'");
      }
      out.push_back({Token::Kind::Op, op, {}});
      i += op.size();
    }
  }
  out.push_back({Token::Kind::End, "", {}});
  return out;
}

}  // namespace wgrt::llm::jinja
