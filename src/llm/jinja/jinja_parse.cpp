// Template source -> syntax tree: the lexer (jinja_lex.h) cuts the source into
// text and tags and tags into tokens; a recursive-descent parser builds
// statements and expressions with Jinja's operator precedence.
#include <cctype>
#include <cstdlib>

#include "llm/jinja/jinja_ast.h"
#include "llm/jinja/jinja_lex.h"
#include "llm/jinja/jinja_values.h"

namespace wgrt::llm::jinja {
namespace {

// --- expressions ---

class ExprParser {
 public:
  ExprParser(std::vector<Token> tokens, int line) : t_(std::move(tokens)), line_(line) {}

  ExprPtr expression() { return ternary(); }
  // Without a trailing `if`: a for loop's iterable, whose `if` is its filter.
  ExprPtr condition_free_expression() { return or_expr(); }
  bool at_end() const { return t_[i_].kind == Token::Kind::End; }
  bool peek_name(std::string_view n) const { return t_[i_].kind == Token::Kind::Name && t_[i_].text == n; }
  bool accept_name(std::string_view n) { return peek_name(n) ? (++i_, true) : false; }
  bool accept_op(std::string_view o) {
    if (t_[i_].kind == Token::Kind::Op && t_[i_].text == o) return ++i_, true;
    return false;
  }
  void expect_op(std::string_view o) {
    if (!accept_op(o)) fail(line_, "expected '" + std::string(o) + "' near '" + t_[i_].text + "'");
  }
  std::string name() {
    if (t_[i_].kind != Token::Kind::Name) fail(line_, "expected a name near '" + t_[i_].text + "'");
    return t_[i_++].text;
  }
  void expect_end() {
    if (!at_end()) fail(line_, "unexpected '" + t_[i_].text + "'");
  }

 private:
  ExprPtr make(Expr::Kind k, std::string name = {}) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->line = line_;
    e->name = std::move(name);
    return e;
  }
  ExprPtr binary(std::string op, ExprPtr a, ExprPtr b) {
    auto e = make(Expr::Kind::Binary, std::move(op));
    e->args.push_back(std::move(a));
    e->args.push_back(std::move(b));
    return e;
  }

  ExprPtr ternary() {
    ExprPtr v = or_expr();
    if (!accept_name("if")) return v;
    auto e = make(Expr::Kind::Ternary);
    e->args.push_back(std::move(v));
    e->args.push_back(or_expr());
    if (accept_name("else")) e->args.push_back(ternary());
    return e;
  }
  ExprPtr or_expr() {
    ExprPtr v = and_expr();
    while (accept_name("or")) v = binary("or", std::move(v), and_expr());
    return v;
  }
  ExprPtr and_expr() {
    ExprPtr v = not_expr();
    while (accept_name("and")) v = binary("and", std::move(v), not_expr());
    return v;
  }
  ExprPtr not_expr() {
    if (accept_name("not")) {
      auto e = make(Expr::Kind::Unary, "not");
      e->args.push_back(not_expr());
      return e;
    }
    return compare();
  }
  ExprPtr compare() {
    ExprPtr v = additive();
    while (true) {
      static const char* kOps[] = {"==", "!=", "<", ">", "<=", ">="};
      bool matched = false;
      for (const char* op : kOps) {
        if (accept_op(op)) {
          v = binary(op, std::move(v), additive());
          matched = true;
          break;
        }
      }
      if (matched) continue;
      if (accept_name("in")) {
        v = binary("in", std::move(v), additive());
      } else if (peek_name("not") && t_[i_ + 1].kind == Token::Kind::Name && t_[i_ + 1].text == "in") {
        i_ += 2;
        v = binary("not in", std::move(v), additive());
      } else {
        return v;
      }
    }
  }
  ExprPtr additive() {
    ExprPtr v = concat();
    while (true) {
      if (accept_op("+"))
        v = binary("+", std::move(v), concat());
      else if (accept_op("-"))
        v = binary("-", std::move(v), concat());
      else
        return v;
    }
  }
  ExprPtr concat() {
    ExprPtr v = multiplicative();
    while (accept_op("~")) v = binary("~", std::move(v), multiplicative());
    return v;
  }
  ExprPtr multiplicative() {
    ExprPtr v = unary();
    while (true) {
      if (accept_op("*"))
        v = binary("*", std::move(v), unary());
      else if (accept_op("//"))
        v = binary("//", std::move(v), unary());
      else if (accept_op("/"))
        v = binary("/", std::move(v), unary());
      else if (accept_op("%"))
        v = binary("%", std::move(v), unary());
      else
        return v;
    }
  }
  ExprPtr unary() {
    if (accept_op("-") || accept_op("+")) {
      auto e = make(Expr::Kind::Unary, t_[i_ - 1].text);
      e->args.push_back(unary());
      return filters(std::move(e));
    }
    return filters(postfix(primary()));
  }
  // Arguments after '(' up to ')': positional, then name=value.
  void call_args(Expr& e) {
    if (accept_op(")")) return;
    do {
      if (t_[i_].kind == Token::Kind::Name && t_[i_ + 1].kind == Token::Kind::Op && t_[i_ + 1].text == "=") {
        std::string key = name();
        expect_op("=");
        e.kwargs.emplace_back(std::move(key), expression());
      } else {
        e.args.push_back(expression());
      }
    } while (accept_op(","));
    expect_op(")");
  }
  ExprPtr filters(ExprPtr v) {
    while (true) {
      if (accept_op("|")) {
        auto e = make(Expr::Kind::Filter, name());
        e->args.push_back(std::move(v));
        if (accept_op("(")) call_args(*e);
        v = std::move(e);
      } else if (accept_name("is")) {
        const bool negate = accept_name("not");
        auto e = make(Expr::Kind::Test, name());
        e->negate = negate;
        e->args.push_back(std::move(v));
        if (accept_op("(")) {
          call_args(*e);
        } else if (t_[i_].kind == Token::Kind::String || t_[i_].kind == Token::Kind::Number) {
          e->args.push_back(primary());  // `is equalto 'x'`
        }
        v = std::move(e);
      } else {
        return v;
      }
    }
  }
  ExprPtr postfix(ExprPtr v) {
    while (true) {
      if (accept_op(".")) {
        auto e = make(Expr::Kind::Attr, name());
        e->args.push_back(std::move(v));
        v = std::move(e);
      } else if (accept_op("[")) {
        ExprPtr parts[3];
        bool slice = false;
        for (int k = 0; k < 3; ++k) {
          if (!(t_[i_].kind == Token::Kind::Op && (t_[i_].text == ":" || t_[i_].text == "]"))) parts[k] = expression();
          if (k < 2 && accept_op(":")) {
            slice = true;
            continue;
          }
          break;
        }
        expect_op("]");
        auto e = make(slice ? Expr::Kind::Slice : Expr::Kind::Index);
        e->args.push_back(std::move(v));
        for (int k = 0; k < (slice ? 3 : 1); ++k) {
          e->args.push_back(parts[k] ? std::move(parts[k]) : make(Expr::Kind::Literal));
        }
        v = std::move(e);
      } else if (accept_op("(")) {
        auto e = make(Expr::Kind::Call);
        e->args.push_back(std::move(v));
        call_args(*e);
        v = std::move(e);
      } else {
        return v;
      }
    }
  }
  ExprPtr primary() {
    const Token& t = t_[i_];
    if (t.kind == Token::Kind::Number) {
      auto e = make(Expr::Kind::Literal);
      e->value = t.number;
      ++i_;
      return e;
    }
    if (t.kind == Token::Kind::String) {
      auto e = make(Expr::Kind::Literal);
      std::string s;
      while (t_[i_].kind == Token::Kind::String) s += t_[i_++].text;  // adjacent literals concatenate
      e->value = Value::string(std::move(s));
      return e;
    }
    if (t.kind == Token::Kind::Name) {
      ++i_;
      auto e = make(Expr::Kind::Literal);
      if (t.text == "true" || t.text == "True")
        e->value = Value::boolean(true);
      else if (t.text == "false" || t.text == "False")
        e->value = Value::boolean(false);
      else if (t.text == "none" || t.text == "None")
        e->value = Value::none();
      else
        return make(Expr::Kind::Name, t.text);
      return e;
    }
    if (accept_op("(")) {
      ExprPtr v = expression();
      if (accept_op(",")) {  // a tuple: treated as a list
        auto list = make(Expr::Kind::List);
        list->args.push_back(std::move(v));
        if (!accept_op(")")) {
          do list->args.push_back(expression());
          while (accept_op(","));
          expect_op(")");
        }
        return list;
      }
      expect_op(")");
      return v;
    }
    if (accept_op("[")) {
      auto e = make(Expr::Kind::List);
      if (!accept_op("]")) {
        do {
          if (t_[i_].kind == Token::Kind::Op && t_[i_].text == "]") break;  // trailing comma
          e->args.push_back(expression());
        } while (accept_op(","));
        expect_op("]");
      }
      return e;
    }
    if (accept_op("{")) {
      auto e = make(Expr::Kind::Dict);
      if (!accept_op("}")) {
        do {
          e->args.push_back(expression());
          expect_op(":");
          e->args.push_back(expression());
        } while (accept_op(","));
        expect_op("}");
      }
      return e;
    }
    fail(line_, "unexpected '" + t.text + "' in an expression");
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  int line_;
};

// --- statements ---

class Parser {
 public:
  explicit Parser(std::vector<Piece> pieces) : p_(std::move(pieces)) {}

  std::unique_ptr<Node> document() {
    auto root = block({});
    if (i_ < p_.size()) fail(p_[i_].line, "unexpected '{% " + keyword(p_[i_]) + " %}'");
    return root;
  }

 private:
  static std::string keyword(const Piece& p) {
    size_t a = 0;
    while (a < p.body.size() && is_space(p.body[a])) ++a;
    size_t b = a;
    while (b < p.body.size() && (std::isalnum(static_cast<unsigned char>(p.body[b])) || p.body[b] == '_')) ++b;
    return p.body.substr(a, b - a);
  }

  std::unique_ptr<Node> node(Node::Kind k, int line) {
    auto n = std::make_unique<Node>();
    n->kind = k;
    n->line = line;
    return n;
  }

  // Statements until one of `ends` (left unconsumed) or the end of input.
  std::unique_ptr<Node> block(std::initializer_list<std::string_view> ends) {
    auto seq = node(Node::Kind::Sequence, i_ < p_.size() ? p_[i_].line : 0);
    while (i_ < p_.size()) {
      const Piece& p = p_[i_];
      if (p.kind == Piece::Kind::Text) {
        auto n = node(Node::Kind::Text, p.line);
        n->text = p.body;
        seq->children.push_back(std::move(n));
        ++i_;
        continue;
      }
      if (p.kind == Piece::Kind::Output) {
        ExprParser e(tokenize(p.body, p.line), p.line);
        auto n = node(Node::Kind::Output, p.line);
        n->expr = e.expression();
        e.expect_end();
        seq->children.push_back(std::move(n));
        ++i_;
        continue;
      }
      const std::string kw = keyword(p);
      for (std::string_view end : ends) {
        if (kw == end) return seq;
      }
      seq->children.push_back(statement(kw));
    }
    if (ends.size() > 0) fail(p_.empty() ? 0 : p_.back().line, "missing '{% " + std::string(*ends.begin()) + " %}'");
    return seq;
  }

  // One {% ... %} statement (its body too, for blocks), the piece at i_.
  std::unique_ptr<Node> statement(const std::string& kw) {
    const Piece& p = p_[i_++];
    ExprParser e(tokenize(p.body, p.line), p.line);
    e.name();  // the keyword
    if (kw == "if") return if_statement(p, e);
    if (kw == "for") return for_statement(p, e);
    if (kw == "set") return set_statement(p, e);
    if (kw == "macro") return macro_statement(p, e);
    if (kw == "generation") {  // marks assistant text for training masks; renders its body
      e.expect_end();
      return closed_block("endgeneration");
    }
    if (kw == "break" || kw == "continue") {
      e.expect_end();
      return node(kw == "break" ? Node::Kind::Break : Node::Kind::Continue, p.line);
    }
    fail(p.line, "'{% " + kw + " %}' is not supported");
  }

  // {% if %} ... {% elif %} ... {% else %} ... {% endif %}: a body per condition, then the else body.
  std::unique_ptr<Node> if_statement(const Piece& p, ExprParser& e) {
    auto n = node(Node::Kind::If, p.line);
    n->conditions.push_back(e.expression());
    e.expect_end();
    while (true) {
      n->bodies.push_back(block({"elif", "else", "endif"}));
      const Piece& q = p_[i_++];
      const std::string k = keyword(q);
      ExprParser qe(tokenize(q.body, q.line), q.line);
      qe.name();
      if (k == "elif") {
        n->conditions.push_back(qe.expression());
        qe.expect_end();
      } else if (k == "else") {
        qe.expect_end();
        n->bodies.push_back(block({"endif"}));
        ++i_;
        return n;
      } else {
        qe.expect_end();
        return n;
      }
    }
  }

  // {% for a, b in xs if cond %} ... {% else %} ... {% endfor %}
  std::unique_ptr<Node> for_statement(const Piece& p, ExprParser& e) {
    auto n = node(Node::Kind::For, p.line);
    do n->vars.push_back(e.name());
    while (e.accept_op(","));
    if (!e.accept_name("in")) fail(p.line, "expected 'in' in a for loop");
    n->expr = e.condition_free_expression();
    if (e.accept_name("if")) n->loop_filter = e.expression();
    e.expect_end();
    n->bodies.push_back(block({"else", "endfor"}));
    if (keyword(p_[i_++]) == "else") {
      n->bodies.push_back(block({"endfor"}));
      ++i_;
    }
    return n;
  }

  // {% set x = v %}, {% set ns.x = v %}, or {% set x %} ... {% endset %}
  std::unique_ptr<Node> set_statement(const Piece& p, ExprParser& e) {
    auto n = node(Node::Kind::Set, p.line);
    n->target = e.name();
    if (e.accept_op(".")) n->target_attr = e.name();
    if (e.accept_op("=")) {
      n->expr = e.expression();
      e.expect_end();
      return n;
    }
    e.expect_end();  // a block assignment: the rendered body is the value
    n->bodies.push_back(closed_block("endset"));
    return n;
  }

  // {% macro name(a, b=default) %} ... {% endmacro %}: parameters in vars, defaults in conditions.
  std::unique_ptr<Node> macro_statement(const Piece& p, ExprParser& e) {
    auto n = node(Node::Kind::Macro, p.line);
    n->target = e.name();
    e.expect_op("(");
    if (!e.accept_op(")")) {
      do {
        n->vars.push_back(e.name());
        n->conditions.push_back(e.accept_op("=") ? e.expression() : nullptr);
      } while (e.accept_op(","));
      e.expect_op(")");
    }
    e.expect_end();
    n->bodies.push_back(closed_block("endmacro"));
    return n;
  }

  // The statements up to `{% end %}`, which is consumed.
  std::unique_ptr<Node> closed_block(std::string_view end) {
    auto body = block({end});
    const Piece& q = p_[i_++];
    ExprParser qe(tokenize(q.body, q.line), q.line);
    qe.name();
    if (!qe.at_end()) qe.name();  // {% endmacro name %}
    qe.expect_end();
    return body;
  }

  std::vector<Piece> p_;
  size_t i_ = 0;
};

}  // namespace

Template Template::parse(std::string_view source) {
  // Jinja drops one newline at the very end of a template (keep_trailing_newline off).
  if (source.size() >= 2 && source.substr(source.size() - 2) == "\r\n")
    source.remove_suffix(2);
  else if (!source.empty() && source.back() == '\n')
    source.remove_suffix(1);
  Template t;
  t.root_ = Parser(split_source(source)).document();
  return t;
}

}  // namespace wgrt::llm::jinja
