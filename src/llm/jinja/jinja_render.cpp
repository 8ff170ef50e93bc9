// Evaluation of the syntax tree (jinja_renderer.h): statements, scopes,
// expressions, calls and macros. Filters, tests and methods are
// jinja_filters.cpp.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>

#include "llm/jinja/jinja_renderer.h"
#include "wgrt/error.h"

namespace wgrt::llm::jinja {

Renderer::Renderer(const Object& globals, const std::tm& now) : now_(now) {
  scopes_.emplace_back(globals.begin(), globals.end());
}

Flow Renderer::exec(const Node& n, std::string& out) {
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

Flow Renderer::exec_for(const Node& n, std::string& out) {
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

Value Renderer::lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    if (auto f = it->find(name); f != it->end()) return f->second;
  }
  return {};
}

Value Renderer::eval(const Expr& e) {
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

Value Renderer::index(const Expr& e, const Value& obj, const Value& key) {
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

Value Renderer::slice(const Expr& e, const Value& obj) {
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

std::vector<Value> Renderer::args_of(const Expr& e, size_t first) {
  std::vector<Value> out;
  for (size_t k = first; k < e.args.size(); ++k) out.push_back(eval(*e.args[k]));
  return out;
}

Value Renderer::call(const Expr& e) {
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

bool Renderer::bound(const std::string& name) const {
  for (const auto& scope : scopes_) {
    if (scope.count(name)) return true;
  }
  return false;
}

bool Renderer::is_function(const std::string& name) const {
  static const char* kGlobals[] = {"raise_exception", "namespace", "range", "strftime_now"};
  for (const char* g : kGlobals) {
    if (name == g) return true;
  }
  return macros_.count(name) > 0;
}

Value Renderer::call_macro(const Expr& e, const Node& m, const std::vector<Value>& a) {
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

Value Renderer::binary(const Expr& e) {
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
