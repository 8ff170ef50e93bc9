// Evaluation of the syntax tree: scopes (a for loop's body has its own, so
// `set` inside it does not leak, hence namespace()), expressions, filters,
// tests and the string/dict methods chat templates call.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <map>

#include "llm/jinja/jinja_ast.h"
#include "llm/jinja/jinja_values.h"
#include "wgrt/error.h"

namespace wgrt::llm::jinja {

namespace {

using K = Value::Kind;

enum class Flow { Normal, Break, Continue };

class Renderer {
 public:
  Renderer(const Object& globals, const std::tm& now) : now_(now) {
    scopes_.emplace_back(globals.begin(), globals.end());
  }

  Flow exec(const Node& n, std::string& out) {
    switch (n.kind) {
      case Node::Kind::Sequence:
        for (const auto& c : n.children) {
          if (Flow f = exec(*c, out); f != Flow::Normal) return f;
        }
        return Flow::Normal;
      case Node::Kind::Text:
        out += n.text;
        return Flow::Normal;
      case Node::Kind::Output:
        out += str(eval(*n.expr));
        return Flow::Normal;
      case Node::Kind::If:
        for (size_t k = 0; k < n.bodies.size(); ++k) {
          if (k >= n.conditions.size() || truthy(eval(*n.conditions[k]))) return exec(*n.bodies[k], out);
        }
        return Flow::Normal;
      case Node::Kind::For:
        return exec_for(n, out);
      case Node::Kind::Macro:
        macros_[n.target] = &n;
        return Flow::Normal;
      case Node::Kind::Set: {
        Value v;
        if (n.expr) {
          v = eval(*n.expr);
        } else {
          std::string body;
          exec(*n.bodies[0], body);
          v = Value::string(std::move(body));
        }
        if (n.target_attr.empty()) {
          scopes_.back()[n.target] = std::move(v);
          return Flow::Normal;
        }
        Value ns = lookup(n.target);
        if (!ns.is(K::Object)) fail(n.line, "'" + n.target + "' is not a namespace");
        for (auto& [key, val] : *ns.object) {
          if (key == n.target_attr) {
            val = std::move(v);
            return Flow::Normal;
          }
        }
        ns.object->emplace_back(n.target_attr, std::move(v));
        return Flow::Normal;
      }
      case Node::Kind::Break:
        return Flow::Break;
      case Node::Kind::Continue:
        return Flow::Continue;
    }
    return Flow::Normal;
  }

 private:
  Flow exec_for(const Node& n, std::string& out) {
    const Value seq = eval(*n.expr);
    std::vector<Value> items;
    if (seq.is(K::Array)) {
      items = *seq.array;
    } else if (seq.is(K::Object)) {
      for (const auto& kv : *seq.object) items.push_back(Value::string(kv.first));
    } else if (seq.is(K::String)) {
      for (char c : seq.s) items.push_back(Value::string(std::string(1, c)));
    } else if (!seq.is(K::Undefined) && !seq.is(K::None)) {
      fail(n.line, std::string("cannot loop over a ") + kind_name(seq.kind));
    }
    scopes_.emplace_back();
    auto bind = [&](const Value& item) {
      if (n.vars.size() == 1) {
        scopes_.back()[n.vars[0]] = item;
        return;
      }
      if (!item.is(K::Array) || item.array->size() != n.vars.size()) fail(n.line, "cannot unpack a loop item");
      for (size_t k = 0; k < n.vars.size(); ++k) scopes_.back()[n.vars[k]] = (*item.array)[k];
    };
    if (n.loop_filter) {
      std::vector<Value> kept;
      for (const Value& item : items) {
        bind(item);
        if (truthy(eval(*n.loop_filter))) kept.push_back(item);
      }
      items = std::move(kept);
    }
    const int64_t len = int64_t(items.size());
    for (int64_t k = 0; k < len; ++k) {
      bind(items[size_t(k)]);
      Object loop = {{"index0", Value::integer(k)},
                     {"index", Value::integer(k + 1)},
                     {"revindex", Value::integer(len - k)},
                     {"revindex0", Value::integer(len - k - 1)},
                     {"first", Value::boolean(k == 0)},
                     {"last", Value::boolean(k == len - 1)},
                     {"length", Value::integer(len)}};
      if (k > 0) loop.emplace_back("previtem", items[size_t(k - 1)]);
      if (k + 1 < len) loop.emplace_back("nextitem", items[size_t(k + 1)]);
      scopes_.back()["loop"] = Value::dict(std::move(loop));
      if (exec(*n.bodies[0], out) == Flow::Break) break;
    }
    scopes_.pop_back();
    if (len == 0 && n.bodies.size() > 1) return exec(*n.bodies[1], out);
    return Flow::Normal;
  }

  Value lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (auto f = it->find(name); f != it->end()) return f->second;
    }
    return {};
  }

  Value eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::Literal:
        return e.value;
      case Expr::Kind::Name:
        return lookup(e.name);
      case Expr::Kind::List: {
        Array a;
        for (const auto& x : e.args) a.push_back(eval(*x));
        return Value::list(std::move(a));
      }
      case Expr::Kind::Dict: {
        Object o;
        for (size_t k = 0; k + 1 < e.args.size(); k += 2) o.emplace_back(str(eval(*e.args[k])), eval(*e.args[k + 1]));
        return Value::dict(std::move(o));
      }
      case Expr::Kind::Attr: {
        const Value obj = eval(*e.args[0]);
        if (const Value* v = obj.find(e.name)) return *v;
        return {};
      }
      case Expr::Kind::Index:
        return index(e, eval(*e.args[0]), eval(*e.args[1]));
      case Expr::Kind::Slice:
        return slice(e, eval(*e.args[0]));
      case Expr::Kind::Call:
        return call(e);
      case Expr::Kind::Filter:
        return filter(e);
      case Expr::Kind::Test:
        return Value::boolean(test(e) != e.negate);
      case Expr::Kind::Unary: {
        const Value v = eval(*e.args[0]);
        if (e.name == "not") return Value::boolean(!truthy(v));
        if (v.is(K::Int)) return Value::integer(e.name == "-" ? -v.i : v.i);
        if (v.is(K::Float)) return Value::number(e.name == "-" ? -v.f : v.f);
        fail(e.line, "unary " + e.name + " of a " + kind_name(v.kind));
      }
      case Expr::Kind::Binary:
        return binary(e);
      case Expr::Kind::Ternary:
        if (truthy(eval(*e.args[1]))) return eval(*e.args[0]);
        return e.args.size() > 2 ? eval(*e.args[2]) : Value();
    }
    return {};
  }

  Value index(const Expr& e, const Value& obj, const Value& key) {
    if (obj.is(K::Object)) {
      const Value* v = obj.find(str(key));
      return v ? *v : Value();
    }
    if ((obj.is(K::Array) || obj.is(K::String)) && key.is(K::Int)) {
      const int64_t n = obj.is(K::Array) ? int64_t(obj.array->size()) : int64_t(obj.s.size());
      const int64_t k = key.i < 0 ? key.i + n : key.i;
      if (k < 0 || k >= n) return {};
      return obj.is(K::Array) ? (*obj.array)[size_t(k)] : Value::string(obj.s.substr(size_t(k), 1));
    }
    if (obj.is(K::Undefined)) return {};
    fail(e.line, std::string("cannot index a ") + kind_name(obj.kind) + " with a " + kind_name(key.kind));
  }

  Value slice(const Expr& e, const Value& obj) {
    const Value start = eval(*e.args[1]), stop = eval(*e.args[2]), step_v = eval(*e.args[3]);
    const int64_t step = step_v.is(K::Int) ? step_v.i : 1;
    if (step == 0) fail(e.line, "slice step 0");
    const int64_t n = obj.is(K::Array) ? int64_t(obj.array->size()) : obj.is(K::String) ? int64_t(obj.s.size()) : -1;
    if (n < 0) fail(e.line, std::string("cannot slice a ") + kind_name(obj.kind));
    auto clamp = [&](const Value& v, int64_t dflt) {
      if (!v.is(K::Int)) return dflt;
      int64_t k = v.i < 0 ? v.i + n : v.i;
      return step > 0 ? std::clamp<int64_t>(k, 0, n) : std::clamp<int64_t>(k, -1, n - 1);
    };
    const int64_t a = clamp(start, step > 0 ? 0 : n - 1), b = clamp(stop, step > 0 ? n : -1);
    Array items;
    std::string s;
    for (int64_t k = a; step > 0 ? k < b : k > b; k += step) {
      if (obj.is(K::Array))
        items.push_back((*obj.array)[size_t(k)]);
      else
        s += obj.s[size_t(k)];
    }
    return obj.is(K::Array) ? Value::list(std::move(items)) : Value::string(std::move(s));
  }

  std::vector<Value> args_of(const Expr& e, size_t first) {
    std::vector<Value> out;
    for (size_t k = first; k < e.args.size(); ++k) out.push_back(eval(*e.args[k]));
    return out;
  }

  Value call(const Expr& e) {
    const Expr& callee = *e.args[0];
    std::vector<Value> a = args_of(e, 1);
    if (callee.kind == Expr::Kind::Attr) return method(e, eval(*callee.args[0]), callee.name, a);
    if (callee.kind != Expr::Kind::Name) fail(e.line, "only named functions and methods can be called");
    const std::string& f = callee.name;
    if (auto m = macros_.find(f); m != macros_.end() && !bound(f)) return call_macro(e, *m->second, a);
    if (f == "strftime_now") {
      // Hugging Face's global: datetime.now().strftime(format), local time.
      if (a.size() != 1 || !a[0].is(K::String)) fail(e.line, "strftime_now() takes one format string");
      char buf[256];
      const size_t n = std::strftime(buf, sizeof buf, a[0].s.c_str(), &now_);
      if (n == 0 && !a[0].s.empty()) fail(e.line, "strftime_now(): format '" + a[0].s + "' gives no text");
      return Value::string(std::string(buf, n));
    }
    if (f == "raise_exception") throw Error(ErrorCode::InvalidArgument, a.empty() ? "raise_exception" : str(a[0]));
    if (f == "namespace") {
      Object o;
      for (const auto& [k, v] : e.kwargs) o.emplace_back(k, eval(*v));
      return Value::dict(std::move(o));
    }
    if (f == "range") {
      int64_t lo = 0, hi = 0, step = 1;
      if (a.size() == 1) hi = a[0].i;
      if (a.size() >= 2) lo = a[0].i, hi = a[1].i;
      if (a.size() == 3) step = a[2].i;
      if (a.empty() || a.size() > 3 || step == 0) fail(e.line, "range() takes 1 to 3 integers");
      Array out;
      for (int64_t k = lo; step > 0 ? k < hi : k > hi; k += step) out.push_back(Value::integer(k));
      return Value::list(std::move(out));
    }
    fail(e.line, "unknown function '" + f + "'");
  }

  bool bound(const std::string& name) const {
    for (const auto& scope : scopes_) {
      if (scope.count(name)) return true;
    }
    return false;
  }

  // A function the template can call by this name (globals and its macros).
  bool is_function(const std::string& name) const {
    static const char* kGlobals[] = {"raise_exception", "namespace", "range", "strftime_now"};
    for (const char* g : kGlobals) {
      if (name == g) return true;
    }
    return macros_.count(name) > 0;
  }

  // A macro's body renders with the template's top-level variables and its
  // parameters (positional, then by name, then defaults; missing ones undefined).
  Value call_macro(const Expr& e, const Node& m, const std::vector<Value>& a) {
    if (a.size() > m.vars.size()) fail(e.line, "macro '" + m.target + "' takes " + std::to_string(m.vars.size()) +
                                                   " arguments, got " + std::to_string(a.size()));
    std::map<std::string, Value> params;
    for (size_t k = 0; k < m.vars.size(); ++k) {
      if (k < a.size()) {
        params[m.vars[k]] = a[k];
      } else if (m.conditions[k]) {
        params[m.vars[k]] = eval(*m.conditions[k]);
      } else {
        params[m.vars[k]] = Value();
      }
    }
    for (const auto& [k, x] : e.kwargs) {
      if (std::find(m.vars.begin(), m.vars.end(), k) == m.vars.end())
        fail(e.line, "macro '" + m.target + "' has no parameter '" + k + "'");
      params[k] = eval(*x);
    }
    std::vector<std::map<std::string, Value>> saved = std::move(scopes_);
    scopes_ = {saved.front(), std::move(params)};
    std::string out;
    try {
      exec(*m.bodies[0], out);
    } catch (...) {
      scopes_ = std::move(saved);
      throw;
    }
    scopes_ = std::move(saved);
    return Value::string(std::move(out));
  }

  Value method(const Expr& e, const Value& obj, const std::string& m, const std::vector<Value>& a) {
    auto arg_str = [&](size_t k, const std::string& dflt) {
      return k < a.size() && a[k].is(K::String) ? a[k].s : dflt;
    };
    if (obj.is(K::String)) {
      const std::string& s = obj.s;
      const std::string ws = " \t\n\r\f\v";
      if (m == "strip") return Value::string(strip_chars(s, true, true, arg_str(0, ws)));
      if (m == "lstrip") return Value::string(strip_chars(s, true, false, arg_str(0, ws)));
      if (m == "rstrip") return Value::string(strip_chars(s, false, true, arg_str(0, ws)));
      if (m == "upper" || m == "lower") {
        std::string r = s;
        for (char& c : r)
          c = char(m == "upper" ? std::toupper(static_cast<unsigned char>(c))
                                : std::tolower(static_cast<unsigned char>(c)));
        return Value::string(r);
      }
      if (m == "title") return Value::string(title_case(s, true));
      if (m == "capitalize") return Value::string(title_case(s, false));
      if (m == "startswith") return Value::boolean(s.rfind(arg_str(0, ""), 0) == 0);
      if (m == "endswith") {
        const std::string x = arg_str(0, "");
        return Value::boolean(s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0);
      }
      if (m == "replace") return Value::string(replace_all(s, arg_str(0, ""), arg_str(1, "")));
      if (m == "split") {
        Array parts;
        if (a.empty() || a[0].is(K::None)) {  // runs of whitespace
          size_t k = 0;
          while (k < s.size()) {
            while (k < s.size() && ws.find(s[k]) != std::string::npos) ++k;
            size_t j = k;
            while (j < s.size() && ws.find(s[j]) == std::string::npos) ++j;
            if (j > k) parts.push_back(Value::string(s.substr(k, j - k)));
            k = j;
          }
        } else {
          const std::string sep = arg_str(0, " ");
          if (sep.empty()) fail(e.line, "split() with an empty separator");
          size_t k = 0;
          for (size_t at; (at = s.find(sep, k)) != std::string::npos; k = at + sep.size()) {
            parts.push_back(Value::string(s.substr(k, at - k)));
          }
          parts.push_back(Value::string(s.substr(k)));
        }
        return Value::list(std::move(parts));
      }
    }
    if (obj.is(K::Object)) {
      if (m == "items" || m == "keys" || m == "values") {
        Array out;
        for (const auto& [k, v] : *obj.object) {
          if (m == "items")
            out.push_back(Value::list({Value::string(k), v}));
          else
            out.push_back(m == "keys" ? Value::string(k) : v);
        }
        return Value::list(std::move(out));
      }
      if (m == "get") {
        const Value* v = a.empty() ? nullptr : obj.find(str(a[0]));
        return v ? *v : a.size() > 1 ? a[1] : Value::none();
      }
    }
    fail(e.line, std::string("unknown method '") + m + "' of a " + kind_name(obj.kind));
  }

  Value filter(const Expr& e) { return apply_filter(e, e.name, eval(*e.args[0])); }

  // Filter `f` on `v`, with the arguments of `e` (a filter expression, or map()'s).
  Value apply_filter(const Expr& e, const std::string& f, const Value& v) {
    const std::vector<Value> a = f == e.name ? args_of(e, 1) : std::vector<Value>();
    if (f == "trim") return Value::string(strip_chars(str(v), true, true));
    if (f == "length" || f == "count") {
      if (v.is(K::Undefined)) return Value::integer(0);  // as jinja2's Undefined
      if (v.is(K::Array)) return Value::integer(int64_t(v.array->size()));
      if (v.is(K::Object)) return Value::integer(int64_t(v.object->size()));
      if (v.is(K::String)) return Value::integer(int64_t(v.s.size()));  // bytes: templates measure ASCII
      fail(e.line, std::string("length of a ") + kind_name(v.kind));
    }
    if (f == "tojson") {
      int indent = -1;
      for (const auto& [k, x] : e.kwargs) {
        if (k == "indent") indent = int(eval(*x).i);
      }
      if (!a.empty() && a[0].is(K::Int)) indent = int(a[0].i);
      std::string out;
      json(v, indent, 0, out);
      return Value::string(out);
    }
    if (f == "upper" || f == "lower" || f == "title" || f == "capitalize")
      return method(e, Value::string(str(v)), f, {});
    if (f == "replace") return method(e, Value::string(str(v)), f, a);
    if (f == "default" || f == "d") {
      const bool boolean = a.size() > 1 && truthy(a[1]);
      if (v.is(K::Undefined) || (boolean && !truthy(v))) return a.empty() ? Value::string("") : a[0];
      return v;
    }
    if (f == "first" || f == "last") {
      if (v.is(K::Array)) return v.array->empty() ? Value() : f == "first" ? v.array->front() : v.array->back();
      if (v.is(K::String))
        return v.s.empty() ? Value() : Value::string(std::string(1, f == "first" ? v.s.front() : v.s.back()));
      fail(e.line, f + " of a " + kind_name(v.kind));
    }
    if (f == "join") {
      if (!v.is(K::Array)) fail(e.line, std::string("join of a ") + kind_name(v.kind));
      std::string out;
      const std::string sep = a.empty() ? "" : str(a[0]);
      for (size_t k = 0; k < v.array->size(); ++k) out += (k ? sep : "") + str((*v.array)[k]);
      return Value::string(out);
    }
    if (f == "string") return Value::string(str(v));
    if (f == "list") {
      if (v.is(K::Array)) return v;
      if (v.is(K::Object)) return method(e, v, "keys", {});
      Array chars;
      for (char c : str(v)) chars.push_back(Value::string(std::string(1, c)));
      return Value::list(std::move(chars));
    }
    if (f == "reverse") {
      if (v.is(K::String)) return Value::string(std::string(v.s.rbegin(), v.s.rend()));
      if (!v.is(K::Array)) fail(e.line, std::string("reverse of a ") + kind_name(v.kind));
      return Value::list(Array(v.array->rbegin(), v.array->rend()));
    }
    if (f == "items") return method(e, v, "items", {});
    if (f == "int")
      return Value::integer(is_number(v) ? int64_t(as_double(v)) : std::strtoll(str(v).c_str(), nullptr, 10));
    if (f == "float") return Value::number(is_number(v) ? as_double(v) : std::strtod(str(v).c_str(), nullptr));
    if (f == "abs") return v.is(K::Int) ? Value::integer(std::llabs(v.i)) : Value::number(std::fabs(as_double(v)));
    // Iterating an undefined value gives nothing in jinja2.
    const bool sequence_filter = f == "select" || f == "reject" || f == "selectattr" || f == "rejectattr" ||
                                 f == "map" || f == "sort" || f == "unique";
    if (sequence_filter && v.is(K::Undefined)) return Value::list();
    if (f == "sort" || f == "min" || f == "max") return order_filter(e, f, v, a);
    if (f == "select" || f == "reject") {  // items passing (or failing) a test, or truthy ones
      if (!v.is(K::Array)) fail(e.line, f + " of a " + kind_name(v.kind));
      Array kept;
      for (const Value& item : *v.array) {
        const bool ok = a.empty() ? truthy(item)
                                  : test_value(e, str(a[0]), item, std::vector<Value>(a.begin() + 1, a.end()));
        if (ok == (f == "select")) kept.push_back(item);
      }
      return Value::list(std::move(kept));
    }
    if (f == "map") {  // map(attribute='x', default=...) or map('filter')
      if (!v.is(K::Array)) fail(e.line, std::string("map of a ") + kind_name(v.kind));
      Array out;
      const Expr* attribute = nullptr;
      const Expr* dflt = nullptr;
      for (const auto& [k, x] : e.kwargs) {
        if (k == "attribute") attribute = x.get();
        if (k == "default") dflt = x.get();
      }
      if (attribute) {
        const std::string name = str(eval(*attribute));
        for (const Value& item : *v.array) {
          const Value* x = item.find(name);
          out.push_back(x ? *x : dflt ? eval(*dflt) : Value());
        }
      } else if (!a.empty() && a[0].is(K::String)) {
        for (const Value& item : *v.array) out.push_back(apply_filter(e, a[0].s, item));
      } else {
        fail(e.line, "map needs attribute= or a filter name");
      }
      return Value::list(std::move(out));
    }
    if (f == "dictsort") {  // (key, value) pairs by key, case-insensitively as Jinja does
      if (!v.is(K::Object)) fail(e.line, std::string("dictsort of a ") + kind_name(v.kind));
      Array pairs;
      for (const auto& [k, x] : *v.object) pairs.push_back(Value::list({Value::string(k), x}));
      auto lower = [](std::string t) {
        for (char& c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
        return t;
      };
      std::stable_sort(pairs.begin(), pairs.end(), [&](const Value& x, const Value& y) {
        return lower((*x.array)[0].s) < lower((*y.array)[0].s);
      });
      return Value::list(std::move(pairs));
    }
    if (f == "unique") {
      if (!v.is(K::Array)) fail(e.line, std::string("unique of a ") + kind_name(v.kind));
      Array out;
      for (const Value& item : *v.array) {
        if (std::none_of(out.begin(), out.end(), [&](const Value& x) { return equal(x, item); })) out.push_back(item);
      }
      return Value::list(std::move(out));
    }
    if (f == "indent") {  // indent(width=4, first=False, blank=False)
      int64_t width = 4;
      bool first = false, blank = false;
      if (!a.empty()) width = a[0].is(K::Int) ? a[0].i : 4;
      if (a.size() > 1) first = truthy(a[1]);
      if (a.size() > 2) blank = truthy(a[2]);
      for (const auto& [k, x] : e.kwargs) {
        const Value xv = eval(*x);
        if (k == "width") width = xv.i;
        if (k == "first") first = truthy(xv);
        if (k == "blank") blank = truthy(xv);
      }
      const std::string pad(size_t(std::max<int64_t>(width, 0)), ' ');
      const std::string text = str(v);
      std::string out;
      size_t start = 0;
      for (bool first_line = true; start <= text.size(); first_line = false) {
        size_t nl = text.find('\n', start);
        const std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
        if ((!first_line || first) && (blank || !line.empty())) out += pad;
        out += line;
        if (nl == std::string::npos) break;
        out += '\n';
        start = nl + 1;
      }
      return Value::string(out);
    }
    if (f == "safe") return v;
    if (f == "selectattr" || f == "rejectattr") {
      if (!v.is(K::Array) || a.empty()) fail(e.line, f + " needs a list and an attribute name");
      Array kept;
      for (const Value& item : *v.array) {
        const Value* attr = item.find(str(a[0]));
        bool ok;
        if (a.size() >= 3 && (str(a[1]) == "equalto" || str(a[1]) == "eq" || str(a[1]) == "==")) {
          ok = attr && equal(*attr, a[2]);
        } else if (a.size() >= 2 && str(a[1]) == "defined") {
          ok = attr && !attr->is(K::Undefined);
        } else if (a.size() == 1) {
          ok = attr && truthy(*attr);
        } else {
          fail(e.line, f + " with test '" + str(a[1]) + "' is not supported");
        }
        if (ok == (f == "selectattr")) kept.push_back(item);
      }
      return Value::list(std::move(kept));
    }
    fail(e.line, "unknown filter '" + f + "'");
  }

  // sort(reverse=false, case_sensitive=false, attribute=none), min and max
  // (case_sensitive, attribute), ordering numbers and strings as jinja2 does.
  Value order_filter(const Expr& e, const std::string& f, const Value& v, const std::vector<Value>& a) {
    if (!v.is(K::Array)) fail(e.line, f + " of a " + kind_name(v.kind));
    bool reverse = f == "sort" && !a.empty() && truthy(a[0]);
    bool case_sensitive = f == "sort" ? a.size() > 1 && truthy(a[1]) : !a.empty() && truthy(a[0]);
    std::string attribute;
    for (const auto& [k, x] : e.kwargs) {
      const Value xv = eval(*x);
      if (k == "reverse") reverse = truthy(xv);
      if (k == "case_sensitive") case_sensitive = truthy(xv);
      if (k == "attribute") attribute = str(xv);
    }
    auto key = [&](const Value& item) {
      Value k = item;
      if (!attribute.empty()) {
        const Value* x = item.find(attribute);
        k = x ? *x : Value();
      }
      if (k.is(K::String) && !case_sensitive) {
        for (char& c : k.s) c = char(std::tolower(static_cast<unsigned char>(c)));
      }
      return k;
    };
    auto less = [&](const Value& x, const Value& y) {
      const Value kx = key(x), ky = key(y);
      if (is_number(kx) && is_number(ky)) return as_double(kx) < as_double(ky);
      if (kx.is(K::String) && ky.is(K::String)) return kx.s < ky.s;
      fail(e.line, std::string(f) + ": cannot order a " + kind_name(kx.kind) + " and a " + kind_name(ky.kind));
    };
    Array items = *v.array;
    if (f == "sort") {
      std::stable_sort(items.begin(), items.end(), [&](const Value& x, const Value& y) {
        return reverse ? less(y, x) : less(x, y);
      });
      return Value::list(std::move(items));
    }
    if (items.empty()) return {};
    return f == "min" ? *std::min_element(items.begin(), items.end(), less)
                      : *std::max_element(items.begin(), items.end(), less);
  }

  bool test(const Expr& e) {
    const Expr& operand = *e.args[0];
    if (e.name == "defined" && operand.kind == Expr::Kind::Name && !bound(operand.name) &&
        is_function(operand.name)) {
      return true;
    }
    return test_value(e, e.name, eval(operand), args_of(e, 1));
  }

  // Test `t` on `v` with its arguments `a`.
  bool test_value(const Expr& e, const std::string& t, const Value& v, const std::vector<Value>& a) {
    if (t == "defined") return !v.is(K::Undefined);
    if (t == "undefined") return v.is(K::Undefined);
    if (t == "none") return v.is(K::None);
    if (t == "string") return v.is(K::String);
    if (t == "number") return v.is(K::Int) || v.is(K::Float);
    if (t == "integer") return v.is(K::Int);
    if (t == "boolean") return v.is(K::Bool);
    if (t == "true") return v.is(K::Bool) && v.b;
    if (t == "false") return v.is(K::Bool) && !v.b;
    if (t == "mapping") return v.is(K::Object);
    if (t == "iterable") return v.is(K::Array) || v.is(K::Object) || v.is(K::String);
    if (t == "sequence") return v.is(K::Array) || v.is(K::String) || v.is(K::Object);
    if (t == "equalto" || t == "eq" || t == "==" || t == "ne" || t == "!=") {
      if (a.empty()) fail(e.line, "test '" + t + "' needs a value");
      return equal(v, a[0]) != (t == "ne" || t == "!=");
    }
    if (t == "in") {
      if (a.empty()) fail(e.line, "test 'in' needs a container");
      const Value& c = a[0];
      if (c.is(K::String)) return c.s.find(str(v)) != std::string::npos;
      if (c.is(K::Array))
        return std::any_of(c.array->begin(), c.array->end(), [&](const Value& x) { return equal(v, x); });
      if (c.is(K::Object)) return c.find(str(v)) != nullptr;
      fail(e.line, std::string("'in' a ") + kind_name(c.kind));
    }
    if (t == "odd" || t == "even") {
      if (!v.is(K::Int)) fail(e.line, "test '" + t + "' of a " + kind_name(v.kind));
      return (v.i % 2 != 0) == (t == "odd");
    }
    fail(e.line, "unknown test '" + t + "'");
  }

  Value binary(const Expr& e) {
    const std::string& op = e.name;
    if (op == "and") {
      Value a = eval(*e.args[0]);
      return truthy(a) ? eval(*e.args[1]) : a;
    }
    if (op == "or") {
      Value a = eval(*e.args[0]);
      return truthy(a) ? a : eval(*e.args[1]);
    }
    const Value a = eval(*e.args[0]), b = eval(*e.args[1]);
    if (op == "~") return Value::string(str(a) + str(b));
    if (op == "==") return Value::boolean(equal(a, b));
    if (op == "!=") return Value::boolean(!equal(a, b));
    if (op == "in" || op == "not in") {
      bool found = false;
      if (b.is(K::String))
        found = b.s.find(str(a)) != std::string::npos;
      else if (b.is(K::Array))
        found = std::any_of(b.array->begin(), b.array->end(), [&](const Value& x) { return equal(a, x); });
      else if (b.is(K::Object))
        found = b.find(str(a)) != nullptr;
      else if (!b.is(K::Undefined))
        fail(e.line, std::string("'in' a ") + kind_name(b.kind));
      return Value::boolean(found != (op == "not in"));
    }
    if (op == "<" || op == ">" || op == "<=" || op == ">=") {
      int c;
      if (is_number(a) && is_number(b))
        c = as_double(a) < as_double(b) ? -1 : as_double(a) > as_double(b) ? 1 : 0;
      else if (a.is(K::String) && b.is(K::String))
        c = a.s.compare(b.s);
      else
        fail(e.line, std::string("cannot compare a ") + kind_name(a.kind) + " with a " + kind_name(b.kind));
      return Value::boolean(op == "<" ? c < 0 : op == ">" ? c > 0 : op == "<=" ? c <= 0 : c >= 0);
    }
    if (op == "+" && a.is(K::String) && b.is(K::String)) return Value::string(a.s + b.s);
    if (op == "+" && a.is(K::Array) && b.is(K::Array)) {
      Array r = *a.array;
      r.insert(r.end(), b.array->begin(), b.array->end());
      return Value::list(std::move(r));
    }
    if (op == "*" && a.is(K::String) && b.is(K::Int)) {
      std::string r;
      for (int64_t k = 0; k < b.i; ++k) r += a.s;
      return Value::string(r);
    }
    if (!is_number(a) || !is_number(b)) {
      fail(e.line, std::string("'") + op + "' of a " + kind_name(a.kind) + " and a " + kind_name(b.kind));
    }
    const bool ints = !a.is(K::Float) && !b.is(K::Float);
    const double x = as_double(a), y = as_double(b);
    if (op == "/") return Value::number(x / y);
    if ((op == "//" || op == "%") && y == 0) fail(e.line, "division by zero");
    if (ints) {
      const int64_t p = int64_t(x), q = int64_t(y);
      if (op == "+") return Value::integer(p + q);
      if (op == "-") return Value::integer(p - q);
      if (op == "*") return Value::integer(p * q);
      const int64_t fl = (p / q) - (((p % q) != 0 && ((p < 0) != (q < 0))) ? 1 : 0);  // Python floors
      if (op == "//") return Value::integer(fl);
      if (op == "%") return Value::integer(p - fl * q);
    }
    if (op == "+") return Value::number(x + y);
    if (op == "-") return Value::number(x - y);
    if (op == "*") return Value::number(x * y);
    if (op == "//") return Value::number(std::floor(x / y));
    if (op == "%") return Value::number(x - std::floor(x / y) * y);
    fail(e.line, "unknown operator '" + op + "'");
  }

  std::vector<std::map<std::string, Value>> scopes_;
  std::map<std::string, const Node*> macros_;
  std::tm now_;
};

}  // namespace

std::string Template::render(const Object& globals, const std::tm* now) const {
  std::tm local{};
  if (!now) {
    const std::time_t t = std::time(nullptr);
    localtime_r(&t, &local);
    now = &local;
  }
  std::string out;
  Renderer(globals, *now).exec(*root_, out);
  return out;
}

}  // namespace wgrt::llm::jinja
