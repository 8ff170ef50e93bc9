#!/usr/bin/env bash
# Runs the whole test suite and exits non-zero on any failure: CTest and
# pytest on the Release build, then the reliability stages: the GTest suite
# under ASan + UBSan (scripts/test_sanitize.sh), each fuzz target for 30 s
# (scripts/fuzz.sh) and the soak (tests/soak/soak.py). Run scripts/setup.sh
# first. `scripts/test.sh --quick` stops after pytest (for local iteration;
# CI runs everything).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = "--quick" ] && quick=1

if [ ! -d build ]; then
  echo "build/ is missing: run scripts/setup.sh first" >&2
  exit 1
fi
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"

# Python suites: end-to-end checks against independent references, and the
# Python package's tests once it is installed.
suites=()
for d in tests/e2e tests/python; do
  if compgen -G "$d/test_*.py" >/dev/null; then suites+=("$d"); fi
done
if [ ${#suites[@]} -gt 0 ]; then
  python3 -m pytest -q -rs "${suites[@]}"
fi

[ $quick -eq 1 ] && exit 0

stage() { printf '\n== %s\n' "$*"; }
stage "GTest suite under AddressSanitizer + UndefinedBehaviorSanitizer (build-san/)"
scripts/test_sanitize.sh
stage "fuzz smoke: each target for 30 s"
scripts/fuzz.sh 30
stage "soak: 1000 generate calls and 1000 .pte calls, memory flat"
python3 tests/soak/soak.py -n 1000
