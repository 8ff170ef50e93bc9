#!/usr/bin/env bash
# Configures build-san/: clang-15 with AddressSanitizer + UndefinedBehaviorSanitizer
# (and libFuzzer coverage) over wgrt, the GTest suite and the fuzz targets.
# Shared by scripts/test_sanitize.sh and scripts/fuzz.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang++-15 >/dev/null || { echo "clang++-15 is missing: run scripts/setup.sh" >&2; exit 1; }
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# The ExecuTorch backend links the wheel's prebuilt libexecutorch (no
# sanitizer runtime): the Release build tests it (tests/executorch).
if [ ! -f build-san/CMakeCache.txt ]; then
  cmake -S . -B build-san -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-15 \
        -DWGRT_SANITIZE=ON -DWGRT_FUZZ=ON -DWGRT_BUILD_CLI=OFF -DWGRT_BUILD_EXECUTORCH=OFF "${launcher[@]}" \
        -DPython3_EXECUTABLE="$(command -v "${PYTHON:-python3}")" >/dev/null
fi
