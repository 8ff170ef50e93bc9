// A small interpreter for the subset of Jinja that chat templates use
// (`tokenizer.chat_template`), rendering as Hugging Face's apply_chat_template
// does: trim_blocks and lstrip_blocks on, loop controls (break/continue),
// raise_exception(), and a tojson that keeps non-ASCII text.
//
// Supported: text, {{ }}, {% %}, {# #} with "-" whitespace control; if /
// elif / else, for (with loop.index, index0, first, last, length, revindex,
// previtem, nextitem, an else branch and an inline if), set (names,
// namespace attributes, and {% set x %}...{% endset %} blocks), macros (with
// defaults and keyword arguments), {% generation %} blocks; literals
// (strings, numbers, booleans, none, lists, dicts), arithmetic, ~,
// comparisons, in / not in, and / or / not, conditional expressions,
// attributes, subscripts and slices; filters trim, length, count, tojson,
// upper, lower, capitalize, title, default, first, last, join, string, list,
// reverse, replace, int, float, abs, items, dictsort, unique, indent, safe,
// sort, min, max,
// select / reject (with a test), map (attribute= or a filter),
// selectattr / rejectattr (with equalto); tests defined, undefined, none,
// string, number, integer, boolean, mapping, iterable, sequence, true,
// false, equalto, eq, ne, in, odd, even; string methods strip, lstrip,
// rstrip, split, startswith, endswith, upper, lower, replace, title,
// capitalize; dict methods items, keys, values, get; globals range,
// namespace, raise_exception, strftime_now. Anything else is a parse or
// render error (wgrt::Error, InvalidArgument) naming the construct and its
// line in the template.
#pragma once

#include <cstdint>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wgrt::llm::jinja {

struct Value;
using Array = std::vector<Value>;
using Object = std::vector<std::pair<std::string, Value>>;  // insertion order, as Python dicts

struct Value {
  enum class Kind { Undefined, None, Bool, Int, Float, String, Array, Object };
  Kind kind = Kind::Undefined;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;
  // Shared, so that namespace objects are mutated in place by `set ns.x = ...`.
  std::shared_ptr<Array> array;
  std::shared_ptr<Object> object;

  static Value none() { return with(Kind::None); }
  static Value boolean(bool v) {
    Value r = with(Kind::Bool);
    r.b = v;
    return r;
  }
  static Value integer(int64_t v) {
    Value r = with(Kind::Int);
    r.i = v;
    return r;
  }
  static Value number(double v) {
    Value r = with(Kind::Float);
    r.f = v;
    return r;
  }
  static Value string(std::string v) {
    Value r = with(Kind::String);
    r.s = std::move(v);
    return r;
  }
  static Value list(Array v = {}) {
    Value r = with(Kind::Array);
    r.array = std::make_shared<Array>(std::move(v));
    return r;
  }
  static Value dict(Object v = {}) {
    Value r = with(Kind::Object);
    r.object = std::make_shared<Object>(std::move(v));
    return r;
  }

  bool is(Kind k) const { return kind == k; }
  // The member named `key` of an object, or nullptr.
  const Value* find(std::string_view key) const;

 private:
  static Value with(Kind k) {
    Value r;
    r.kind = k;
    return r;
  }
};

struct Node;

class Template {
 public:
  // Throws Error(InvalidArgument) with the line of the first construct
  // outside the supported subset or a syntax error.
  static Template parse(std::string_view source);
  // Renders with `globals` as the outermost variables (messages,
  // add_generation_prompt, bos_token, ...). raise_exception() in the
  // template throws Error(InvalidArgument) with its message. strftime_now()
  // formats `now` (default: the current local time).
  std::string render(const Object& globals, const std::tm* now = nullptr) const;

 private:
  std::shared_ptr<const Node> root_;
};

}  // namespace wgrt::llm::jinja
