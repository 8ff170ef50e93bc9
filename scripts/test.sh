#!/usr/bin/env bash
# Runs the whole test suite (CTest, then pytest) and
# exits non-zero on any failure. Run scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d build ]; then
  echo "build/ is missing: run scripts/setup.sh first" >&2
  exit 1
fi
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"

# Python suites: end-to-end checks against independent references, and the
# Python package's tests once it is installed.
suites=()
for d in tests/e2e tests/coverage tests/python; do
  if compgen -G "$d/test_*.py" >/dev/null; then suites+=("$d"); fi
done
if [ ${#suites[@]} -gt 0 ]; then
  python3 -m pytest -q -rs "${suites[@]}"
fi
