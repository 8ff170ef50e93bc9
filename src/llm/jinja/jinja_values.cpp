// Python-like behaviour of template values: str() and repr() as {{ }}
// prints them, json.dumps for tojson, ==, truthiness, and the string helpers
// filters and methods share.
#include "llm/jinja/jinja_values.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "wgrt/error.h"

namespace wgrt::llm::jinja {

using K = Value::Kind;

std::string str(const Value& v);

const Value* Value::find(std::string_view key) const {
  if (kind != K::Object) return nullptr;
  for (const auto& [k, v] : *object) {
    if (k == key) return &v;
  }
  return nullptr;
}

[[noreturn]] void fail(int line, const std::string& what) {
  throw Error(ErrorCode::InvalidArgument, "chat template line " + std::to_string(line) + ": " + what);
}

const char* kind_name(K k) {
  switch (k) {
    case K::Undefined:
      return "undefined";
    case K::None:
      return "none";
    case K::Bool:
      return "bool";
    case K::Int:
      return "int";
    case K::Float:
      return "float";
    case K::String:
      return "string";
    case K::Array:
      return "list";
    case K::Object:
      return "dict";
  }
  return "?";
}

bool truthy(const Value& v) {
  switch (v.kind) {
    case K::Undefined:
    case K::None:
      return false;
    case K::Bool:
      return v.b;
    case K::Int:
      return v.i != 0;
    case K::Float:
      return v.f != 0;
    case K::String:
      return !v.s.empty();
    case K::Array:
      return !v.array->empty();
    case K::Object:
      return !v.object->empty();
  }
  return false;
}

bool is_number(const Value& v) { return v.is(K::Int) || v.is(K::Float) || v.is(K::Bool); }
double as_double(const Value& v) { return v.is(K::Float) ? v.f : v.is(K::Bool) ? double(v.b) : double(v.i); }

namespace {

// Python's repr of a float: the shortest text that reads back the same.
std::string float_text(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[32];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string repr(const Value& v) {
  if (!v.is(K::String)) return str(v);
  const char q = v.s.find('\'') != std::string::npos && v.s.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, q);
  for (char c : v.s) {
    if (c == q || c == '\\') out += '\\';
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else
      out += c;
  }
  return out + q;
}

}  // namespace

std::string str(const Value& v) {
  switch (v.kind) {
    case K::Undefined:
      return "";
    case K::None:
      return "None";
    case K::Bool:
      return v.b ? "True" : "False";
    case K::Int:
      return std::to_string(v.i);
    case K::Float:
      return float_text(v.f);
    case K::String:
      return v.s;
    case K::Array: {
      std::string out = "[";
      for (size_t k = 0; k < v.array->size(); ++k) out += (k ? ", " : "") + repr((*v.array)[k]);
      return out + "]";
    }
    case K::Object: {
      std::string out = "{";
      bool first = true;
      for (const auto& [key, val] : *v.object) {
        out += (first ? "" : ", ") + repr(Value::string(key)) + ": " + repr(val);
        first = false;
      }
      return out + "}";
    }
  }
  return "";
}

namespace {

void json_string(const std::string& s, std::string& out) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);  // non-ASCII kept (ensure_ascii=False)
        }
    }
  }
  out += '"';
}

}  // namespace

void json(const Value& v, int indent, int depth, std::string& out) {
  auto newline = [&](int d) {
    if (indent < 0) return;
    out += '\n';
    out.append(size_t(indent * d), ' ');
  };
  const std::string item_sep = indent < 0 ? ", " : ",";
  switch (v.kind) {
    case K::Undefined:
    case K::None:
      out += "null";
      return;
    case K::Bool:
      out += v.b ? "true" : "false";
      return;
    case K::Int:
      out += std::to_string(v.i);
      return;
    case K::Float:
      out += float_text(v.f);
      return;
    case K::String:
      json_string(v.s, out);
      return;
    case K::Array:
      if (v.array->empty()) {
        out += "[]";
        return;
      }
      out += '[';
      for (size_t k = 0; k < v.array->size(); ++k) {
        if (k) out += item_sep;
        newline(depth + 1);
        json((*v.array)[k], indent, depth + 1, out);
      }
      newline(depth);
      out += ']';
      return;
    case K::Object: {
      if (v.object->empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      for (const auto& [key, val] : *v.object) {
        if (!first) out += item_sep;
        first = false;
        newline(depth + 1);
        json_string(key, out);
        out += ": ";
        json(val, indent, depth + 1, out);
      }
      newline(depth);
      out += '}';
      return;
    }
  }
}

bool equal(const Value& a, const Value& b) {
  if (is_number(a) && is_number(b)) return as_double(a) == as_double(b);
  if ((a.is(K::None) || a.is(K::Undefined)) && (b.is(K::None) || b.is(K::Undefined))) return a.kind == b.kind;
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case K::String:
      return a.s == b.s;
    case K::Array:
      if (a.array->size() != b.array->size()) return false;
      for (size_t k = 0; k < a.array->size(); ++k) {
        if (!equal((*a.array)[k], (*b.array)[k])) return false;
      }
      return true;
    case K::Object:
      if (a.object->size() != b.object->size()) return false;
      for (const auto& [key, val] : *a.object) {
        const Value* other = b.find(key);
        if (!other || !equal(val, *other)) return false;
      }
      return true;
    default:
      return false;
  }
}

std::string strip_chars(const std::string& s, bool left, bool right, const std::string& chars) {
  size_t a = 0, b = s.size();
  if (left)
    while (a < b && chars.find(s[a]) != std::string::npos) ++a;
  if (right)
    while (b > a && chars.find(s[b - 1]) != std::string::npos) --b;
  return s.substr(a, b - a);
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string title_case(std::string s, bool every_word) {
  bool start = true;
  for (char& c : s) {
    const bool alpha = std::isalpha(static_cast<unsigned char>(c));
    if (alpha)
      c = char(start ? std::toupper(static_cast<unsigned char>(c)) : std::tolower(static_cast<unsigned char>(c)));
    start = every_word ? !alpha : false;
  }
  return s;
}

}  // namespace wgrt::llm::jinja
