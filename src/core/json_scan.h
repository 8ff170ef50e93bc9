// A walk over JSON text's brackets outside strings (escapes followed), with
// no parsing and no recursion: where a value that starts at a bracket ends,
// and how deeply a body nests before a recursive parser sees it.
#pragma once

#include <cstddef>
#include <string_view>

namespace wgrt {

// Calls on_bracket(index, depth) for every bracket of `s` from `from` on that
// is outside a string: depth after an opening bracket, after a closing one.
// Stops when on_bracket returns false.
template <typename OnBracket>
void walk_json_brackets(std::string_view s, size_t from, OnBracket&& on_bracket) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = from; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (!on_bracket(i, ++depth)) return;
    } else if (c == '}' || c == ']') {
      if (!on_bracket(i, --depth)) return;
    }
  }
}

}  // namespace wgrt
