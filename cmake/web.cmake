# Settings of the WebAssembly build (emcmake cmake; scripts/build_web.sh).
#
# Debian's emscripten (3.1.6) compiles against its own sysroot, so the
# header-only libraries wgrt uses from Debian (flatbuffers, nlohmann-json)
# are reached through folders that hold only them: /usr/include itself would
# bring glibc's headers into the wasm compile.
set(WGRT_OTHER_PLATFORM_SOURCES "/src/gpu/wgpu_native\\.cpp$")
set(WGRT_PIC OFF)  # one static module: position-independent code only costs

set(WGRT_WEB_HEADERS "${CMAKE_BINARY_DIR}/third_party/include")
file(MAKE_DIRECTORY "${WGRT_WEB_HEADERS}")
foreach(dir flatbuffers nlohmann)
  if(NOT EXISTS "/usr/include/${dir}")
    message(FATAL_ERROR "/usr/include/${dir} missing: scripts/setup.sh installs it (libflatbuffers-dev, nlohmann-json3-dev)")
  endif()
  if(NOT EXISTS "${WGRT_WEB_HEADERS}/${dir}")
    file(CREATE_LINK "/usr/include/${dir}" "${WGRT_WEB_HEADERS}/${dir}" SYMBOLIC)
  endif()
endforeach()
include_directories(SYSTEM "${WGRT_WEB_HEADERS}")

add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${WGRT_WEB_HEADERS}")

# C++ exceptions cross the whole engine (wgrt::Error), so every object is
# compiled with them; the link (web/CMakeLists.txt) adds Asyncify.
add_compile_options(-fexceptions)
add_link_options(-fexceptions)
