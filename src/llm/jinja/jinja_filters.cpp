// The Jinja renderer's string and dict methods (str.strip(), dict.items(),
// ...), filters (trim, tojson, sort, ...) and tests (defined, in, ...), with
// Python's and jinja2's behaviour (jinja_renderer.h).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <map>

#include "llm/jinja/jinja_renderer.h"
#include "wgrt/error.h"

namespace wgrt::llm::jinja {
namespace {

Value length_of(const Expr& e, const Value& v) {
  if (v.is(K::Undefined)) return Value::integer(0);  // as jinja2's Undefined
  if (v.is(K::Array)) return Value::integer(int64_t(v.array->size()));
  if (v.is(K::Object)) return Value::integer(int64_t(v.object->size()));
  if (v.is(K::String)) return Value::integer(int64_t(v.s.size()));  // bytes: templates measure ASCII
  fail(e.line, std::string("length of a ") + kind_name(v.kind));
}

Value first_or_last(const Expr& e, const std::string& f, const Value& v) {
  if (v.is(K::Array)) return v.array->empty() ? Value() : f == "first" ? v.array->front() : v.array->back();
  if (v.is(K::String))
    return v.s.empty() ? Value() : Value::string(std::string(1, f == "first" ? v.s.front() : v.s.back()));
  fail(e.line, f + " of a " + kind_name(v.kind));
}

Value join(const Expr& e, const Value& v, const std::vector<Value>& a) {
  if (!v.is(K::Array)) fail(e.line, std::string("join of a ") + kind_name(v.kind));
  std::string out;
  const std::string sep = a.empty() ? "" : str(a[0]);
  for (size_t k = 0; k < v.array->size(); ++k) out += (k ? sep : "") + str((*v.array)[k]);
  return Value::string(out);
}

Value reversed(const Expr& e, const Value& v) {
  if (v.is(K::String)) return Value::string(std::string(v.s.rbegin(), v.s.rend()));
  if (!v.is(K::Array)) fail(e.line, std::string("reverse of a ") + kind_name(v.kind));
  return Value::list(Array(v.array->rbegin(), v.array->rend()));
}

// (key, value) pairs by key, case-insensitively as Jinja does.
Value dictsort(const Expr& e, const Value& v) {
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

Value unique(const Expr& e, const Value& v) {
  if (!v.is(K::Array)) fail(e.line, std::string("unique of a ") + kind_name(v.kind));
  Array out;
  for (const Value& item : *v.array) {
    if (std::none_of(out.begin(), out.end(), [&](const Value& x) { return equal(x, item); })) out.push_back(item);
  }
  return Value::list(std::move(out));
}

// selectattr/rejectattr(name), (name, 'defined') or (name, 'equalto', value).
Value select_by_attribute(const Expr& e, const std::string& f, const Value& v, const std::vector<Value>& a) {
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

// indent(width, first, blank): `width` spaces before each line but the first
// (unless `first`), and before blank lines only when `blank`.
std::string indent_lines(const std::string& text, int64_t width, bool first, bool blank) {
  const std::string pad(size_t(std::max<int64_t>(width, 0)), ' ');
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
  return out;
}

}  // namespace

Value Renderer::method(const Expr& e, const Value& obj, const std::string& m, const std::vector<Value>& a) {
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

Value Renderer::filter(const Expr& e) { return apply_filter(e, e.name, eval(*e.args[0])); }

Value Renderer::apply_filter(const Expr& e, const std::string& f, const Value& v) {
  const std::vector<Value> a = f == e.name ? args_of(e, 1) : std::vector<Value>();
  if (f == "trim") return Value::string(strip_chars(str(v), true, true));
  if (f == "length" || f == "count") return length_of(e, v);
  if (f == "tojson") return tojson_filter(e, v, a);
  if (f == "upper" || f == "lower" || f == "title" || f == "capitalize")
    return method(e, Value::string(str(v)), f, {});
  if (f == "replace") return method(e, Value::string(str(v)), f, a);
  if (f == "default" || f == "d") {
    const bool boolean = a.size() > 1 && truthy(a[1]);
    if (v.is(K::Undefined) || (boolean && !truthy(v))) return a.empty() ? Value::string("") : a[0];
    return v;
  }
  if (f == "first" || f == "last") return first_or_last(e, f, v);
  if (f == "join") return join(e, v, a);
  if (f == "string") return Value::string(str(v));
  if (f == "list") {
    if (v.is(K::Array)) return v;
    if (v.is(K::Object)) return method(e, v, "keys", {});
    Array chars;
    for (char c : str(v)) chars.push_back(Value::string(std::string(1, c)));
    return Value::list(std::move(chars));
  }
  if (f == "reverse") return reversed(e, v);
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
  if (f == "select" || f == "reject") return select_filter(e, f, v, a);
  if (f == "map") return map_filter(e, v, a);
  if (f == "dictsort") return dictsort(e, v);
  if (f == "unique") return unique(e, v);
  if (f == "indent") return indent_filter(e, v, a);
  if (f == "safe") return v;
  if (f == "selectattr" || f == "rejectattr") return select_by_attribute(e, f, v, a);
  fail(e.line, "unknown filter '" + f + "'");
}

Value Renderer::tojson_filter(const Expr& e, const Value& v, const std::vector<Value>& a) {
  int indent = -1;
  for (const auto& [k, x] : e.kwargs) {
    if (k == "indent") indent = int(eval(*x).i);
  }
  if (!a.empty() && a[0].is(K::Int)) indent = int(a[0].i);
  std::string out;
  json(v, indent, 0, out);
  return Value::string(out);
}

Value Renderer::select_filter(const Expr& e, const std::string& f, const Value& v, const std::vector<Value>& a) {
  if (!v.is(K::Array)) fail(e.line, f + " of a " + kind_name(v.kind));
  Array kept;
  for (const Value& item : *v.array) {
    const bool ok = a.empty() ? truthy(item)
                              : test_value(e, str(a[0]), item, std::vector<Value>(a.begin() + 1, a.end()));
    if (ok == (f == "select")) kept.push_back(item);
  }
  return Value::list(std::move(kept));
}

Value Renderer::map_filter(const Expr& e, const Value& v, const std::vector<Value>& a) {
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

Value Renderer::indent_filter(const Expr& e, const Value& v, const std::vector<Value>& a) {
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
  return Value::string(indent_lines(str(v), width, first, blank));
}

Value Renderer::order_filter(const Expr& e, const std::string& f, const Value& v, const std::vector<Value>& a) {
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

bool Renderer::test(const Expr& e) {
  const Expr& operand = *e.args[0];
  if (e.name == "defined" && operand.kind == Expr::Kind::Name && !bound(operand.name) &&
      is_function(operand.name)) {
    return true;
  }
  return test_value(e, e.name, eval(operand), args_of(e, 1));
}

bool Renderer::test_value(const Expr& e, const std::string& t, const Value& v, const std::vector<Value>& a) {
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

}  // namespace wgrt::llm::jinja
