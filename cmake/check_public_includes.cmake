# Fails when a front end (src/cli, src/server, python/src) includes a header
# that is not wgrt's public API: include/wgrt, or the front end's own.
# Run by ctest (tests/CMakeLists.txt: public_headers_only) as
#   cmake -DROOT=<source dir> -P cmake/check_public_includes.cmake
# The build enforces the same (the front ends link wgrt_api, which exposes
# include/wgrt only); this names each offending line, and also covers files
# a build may not compile (the Python module without WGRT_BUILD_PYTHON).
set(front_ends
    "src/cli|cli/ server/"       # the CLI also reaches the server it runs
    "src/server|server/"
    "python/src|bindings.h cli/environment.h")  # the WGRT_* mapping, shared with the CLI
set(bad "")
foreach(entry IN LISTS front_ends)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 dir)
  list(GET parts 1 own)
  string(REPLACE " " ";" own "${own}")
  file(GLOB_RECURSE files "${ROOT}/${dir}/*.h" "${ROOT}/${dir}/*.cpp")
  foreach(f IN LISTS files)
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]*)[\">].*$" "\\1" header "${line}")
      set(ok FALSE)
      if(header MATCHES "^wgrt/")
        set(ok TRUE)
      elseif(line MATCHES "#[ \t]*include[ \t]*<")
        # System and third-party headers, unless they name an engine layer.
        if(NOT header MATCHES "^(core|gpu|graph|ops|import|runtime|llm|api|executorch)/")
          set(ok TRUE)
        endif()
      else()
        foreach(prefix IN LISTS own)
          string(FIND "${header}" "${prefix}" at)
          if(at EQUAL 0)
            set(ok TRUE)
          endif()
        endforeach()
      endif()
      if(NOT ok)
        file(RELATIVE_PATH rel "${ROOT}" "${f}")
        string(APPEND bad "  ${rel}: #include of ${header} (not include/wgrt)\n")
      endif()
    endforeach()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "front ends must use wgrt's public API (include/wgrt) only:\n${bad}")
endif()
message(STATUS "src/cli, src/server and python/src include only include/wgrt and their own headers")
