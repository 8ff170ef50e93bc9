# Script mode: cmake -DOUT=<file.cpp> -DROOT=<src dir> -DFILES="a.wgsl;b.wgsl" -P embed_wgsl.cmake
# Writes one C++ file that maps each shader's path (relative to ROOT) to its text.
# An import (a line "//! import path", gpu/shader_program.h) without {slots}
# must name one of FILES: a typo fails the build, naming the shader and line.
set(body "")
foreach(rel IN LISTS FILES)
  file(STRINGS "${ROOT}/${rel}" lines)
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(line MATCHES "^//! import ([^ ]+)")
      set(target "${CMAKE_MATCH_1}")
      string(FIND "${target}" "{" slot)
      list(FIND FILES "${target}" known)
      if(slot EQUAL -1 AND known EQUAL -1)
        message(FATAL_ERROR "${rel} line ${n} imports ${target}, which is not a shader under src/ops")
      endif()
    endif()
  endforeach()
  file(READ "${ROOT}/${rel}" text)
  string(FIND "${text}" ")wgsl\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${rel} contains the raw-string terminator )wgsl\"")
  endif()
  string(APPEND body "    {\"${rel}\", R\"wgsl(${text})wgsl\"},\n")
endforeach()
file(WRITE "${OUT}.tmp"
"// Generated at build time from the .wgsl files under src/. Do not edit.
#include \"gpu/shader_source.h\"

#include <array>
#include <utility>
#include <vector>

#include \"wgrt/error.h\"

namespace wgrt::gpu {
namespace {
constexpr std::pair<std::string_view, std::string_view> kShaders[] = {
${body}};
}  // namespace

std::string_view shader_source(std::string_view path) {
  for (const auto& [name, text] : kShaders) {
    if (name == path) return text;
  }
  throw Error(ErrorCode::NotFound, \"no embedded shader named '\" + std::string(path) + \"'\");
}

std::vector<std::string_view> shader_names() {
  std::vector<std::string_view> names;
  for (const auto& entry : kShaders) names.push_back(entry.first);
  return names;
}
}  // namespace wgrt::gpu
")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
