# Script mode: cmake -DOUT=<file.cpp> -DROOT=<src dir> -DFILES="a.wgsl;b.wgsl" -P embed_wgsl.cmake
# Writes one C++ file that maps each shader's path (relative to ROOT) to its text.
set(body "")
foreach(rel IN LISTS FILES)
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
}  // namespace wgrt::gpu
")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
