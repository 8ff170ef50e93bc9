#!/usr/bin/env bash
# The GTest suite built with AddressSanitizer + UndefinedBehaviorSanitizer
# (clang-15, build-san/) and run whole: any report fails it (UBSan aborts on
# its first finding; ASan and LeakSanitizer exit non-zero). Suppressions, for
# third-party libraries only, are in tests/sanitize/.
set -euo pipefail
cd "$(dirname "$0")/.."
sup=$PWD/tests/sanitize
export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export LSAN_OPTIONS="suppressions=$sup/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$sup/ubsan.supp"
# Set before the build too: listing the tests (gtest_discover_tests) runs the
# instrumented binary.
scripts/configure_san.sh
cmake --build build-san -j"$(nproc)" --target wgrt_tests
ctest --test-dir build-san --output-on-failure -j"$(nproc)" --timeout 600
