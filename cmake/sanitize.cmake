# Instrumented builds, each in a build directory of its own (never mixed with
# the Release build in build/):
#   WGRT_SANITIZE=ON  AddressSanitizer + UndefinedBehaviorSanitizer over wgrt,
#                     the CLI and the tests (scripts/test_sanitize.sh runs it);
#                     any UBSan report aborts, so a finding fails the test.
#   WGRT_FUZZ=ON      libFuzzer targets of tests/fuzz/ (clang only: a missing
#                     clang is a configure error, not a silent skip).
option(WGRT_SANITIZE "Instrument everything with ASan + UBSan" OFF)
option(WGRT_FUZZ "Build the libFuzzer targets in tests/fuzz (needs clang)" OFF)

if(WGRT_SANITIZE OR WGRT_FUZZ)
  set(WGRT_SAN_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_compile_options(${WGRT_SAN_FLAGS} -g)
  add_link_options(-fsanitize=address,undefined)
endif()

if(WGRT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "WGRT_FUZZ needs clang (libFuzzer); configure with -DCMAKE_CXX_COMPILER=clang++-15 "
                        "(scripts/setup.sh installs clang-15 and libfuzzer-15-dev)")
  endif()
  # Coverage instrumentation for the library; only the fuzz executables link
  # libFuzzer's main (tests/fuzz/CMakeLists.txt).
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
