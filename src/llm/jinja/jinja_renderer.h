// The Jinja renderer's class, private to src/llm/jinja: evaluation of the
// syntax tree (statements, scopes, expressions, calls and macros) is
// jinja_render.cpp; the string/dict methods, filters and tests templates call
// are jinja_filters.cpp.
#pragma once

#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "llm/jinja/jinja_ast.h"
#include "llm/jinja/jinja_values.h"

namespace wgrt::llm::jinja {

using K = Value::Kind;

enum class Flow { Normal, Break, Continue };

// Renders one template with one set of globals. Scopes: a for loop's body
// has its own, so `set` inside it does not leak (hence namespace()).
class Renderer {
 public:
  Renderer(const Object& globals, const std::tm& now);

  Flow exec(const Node& n, std::string& out);

 private:
  Flow exec_for(const Node& n, std::string& out);

  Value lookup(const std::string& name) const;

  Value eval(const Expr& e);

  Value index(const Expr& e, const Value& obj, const Value& key);

  Value slice(const Expr& e, const Value& obj);

  std::vector<Value> args_of(const Expr& e, size_t first);

  Value call(const Expr& e);

  bool bound(const std::string& name) const;

  // A function the template can call by this name (globals and its macros).
  bool is_function(const std::string& name) const;

  // A macro's body renders with the template's top-level variables and its
  // parameters (positional, then by name, then defaults; missing ones undefined).
  Value call_macro(const Expr& e, const Node& m, const std::vector<Value>& a);

  // The rest is in jinja_filters.cpp: string/dict methods, filters, tests.
  Value method(const Expr& e, const Value& obj, const std::string& m, const std::vector<Value>& a);

  Value filter(const Expr& e);

  // Filter `f` on `v`, with the arguments of `e` (a filter expression, or map()'s).
  Value apply_filter(const Expr& e, const std::string& f, const Value& v);

  // The filters that evaluate keyword arguments or call back into the renderer.
  Value tojson_filter(const Expr& e, const Value& v, const std::vector<Value>& a);
  Value select_filter(const Expr& e, const std::string& f, const Value& v, const std::vector<Value>& a);
  Value map_filter(const Expr& e, const Value& v, const std::vector<Value>& a);  // map(attribute=) or map('filter')
  Value indent_filter(const Expr& e, const Value& v, const std::vector<Value>& a);  // indent(width, first, blank)

  // sort(reverse=false, case_sensitive=false, attribute=none), min and max
  // (case_sensitive, attribute), ordering numbers and strings as jinja2 does.
  Value order_filter(const Expr& e, const std::string& f, const Value& v, const std::vector<Value>& a);

  bool test(const Expr& e);

  // Test `t` on `v` with its arguments `a`.
  bool test_value(const Expr& e, const std::string& t, const Value& v, const std::vector<Value>& a);

  Value binary(const Expr& e);

  std::vector<std::map<std::string, Value>> scopes_;
  std::map<std::string, const Node*> macros_;
  std::tm now_;
};

}  // namespace wgrt::llm::jinja
