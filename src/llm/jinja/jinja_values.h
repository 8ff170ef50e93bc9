// What the renderer needs of template values, with Python's behaviour (the
// semantics Jinja templates are written against).
#pragma once

#include <string>

#include "llm/jinja/jinja.h"

namespace wgrt::llm::jinja {

// Error(InvalidArgument) naming the template line.
[[noreturn]] void fail(int line, const std::string& what);

const char* kind_name(Value::Kind k);
bool truthy(const Value& v);
bool is_number(const Value& v);  // int, float or bool
double as_double(const Value& v);
bool equal(const Value& a, const Value& b);

// Python's str(): what {{ }} prints.
std::string str(const Value& v);
// json.dumps(v, ensure_ascii=False, indent=indent) (indent < 0: none), as
// Hugging Face's tojson filter does.
void json(const Value& v, int indent, int depth, std::string& out);

std::string strip_chars(const std::string& s, bool left, bool right, const std::string& chars = " \t\n\r\f\v");
std::string replace_all(std::string s, const std::string& from, const std::string& to);
// Python's str.title() (every_word) or str.capitalize().
std::string title_case(std::string s, bool every_word);

}  // namespace wgrt::llm::jinja
