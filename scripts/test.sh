#!/usr/bin/env bash
# Runs the whole test suite (CTest, then pytest once Python tests exist) and
# exits non-zero on any failure. Run scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d build ]; then
  echo "build/ is missing: run scripts/setup.sh first" >&2
  exit 1
fi
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"

if [ -d tests/python ] && compgen -G "tests/python/test_*.py" >/dev/null; then
  python3 -m pytest -q tests/python
fi
