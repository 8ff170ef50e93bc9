#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) into build-san/ with clang-15 and
# runs each as a reproducible smoke test: a fresh corpus of its seeds (the
# committed ones in tests/fuzz/seeds/<target>/, minimized from the long
# campaigns, and the fixture files that are valid inputs), a fixed seed and a
# fixed number of executions, no address-space randomization and no corpus
# reloads, so a clean run is the same run every time (checked: two runs of
# 15,000 made the same corpus) and a finding is a real one. MAX_SECONDS
# (default 60) caps each target's wall time on a slow machine: a capped run is
# a prefix of the same sequence of inputs.
# Findings (crash-*, leak-*, timeout-*, oom-*) land in build-san/fuzz/<target>/
# and fail the script. Usage: scripts/fuzz.sh [MAX_SECONDS] [TARGET...]
# Needs clang-15 and libfuzzer-15-dev (scripts/setup.sh installs them): a
# missing clang is an error, never a skip. Long campaigns: scripts/fuzz_campaign.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
MAX_SECONDS=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(fuzz_gguf fuzz_pte fuzz_ptd fuzz_tokenizer fuzz_chat_template fuzz_openai_request fuzz_tool_calls fuzz_grammar)

# Executions per target: 10-42 s each, 2 min 40 s for all five (measured at
# load average 8 on the 2-core machine), well inside MAX_SECONDS.
runs_of() {
  case "$1" in
    fuzz_gguf) echo 16000 ;;
    fuzz_pte) echo 150000 ;;
    fuzz_ptd) echo 150000 ;;
    fuzz_tokenizer) echo 80000 ;;
    fuzz_chat_template) echo 200000 ;;
    fuzz_openai_request) echo 200000 ;;
    fuzz_tool_calls) echo 200000 ;;
    fuzz_grammar) echo 100000 ;;
    *) echo 10000 ;;
  esac
}

command -v clang++-15 >/dev/null || { echo "fuzz.sh: clang++-15 is missing: run scripts/setup.sh" >&2; exit 1; }
scripts/configure_san.sh
cmake --build build-san -j"$(nproc)" --target "${TARGETS[@]}"
. scripts/fuzz_seeds.sh

# Address-space randomization makes runs differ (pointer-keyed containers
# change iteration order, hence coverage features): off, when allowed.
norandom=()
if setarch -R true 2>/dev/null; then norandom=(setarch -R); else echo "fuzz.sh: setarch -R refused; runs may differ" >&2; fi

status=0
for t in "${TARGETS[@]}"; do
  work=build-san/fuzz/$t
  rm -rf "$work"
  fuzz_seed_corpus "$t" "$work/corpus"
  runs=$(runs_of "$t")
  echo "== $t: $runs executions from seed 1 (at most ${MAX_SECONDS}s)"
  # Inputs up to 128 KiB: the tiny .pte Llama (95 KiB) stays a whole seed.
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
      "${norandom[@]}" "build-san/tests/fuzz/$t" "$work/corpus" -seed=1 -runs="$runs" -reload=0 -max_total_time="$MAX_SECONDS" \
      -max_len=131072 -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=30 -artifact_prefix="$work/" \
      -print_final_stats=1 2>"$work/log.txt"; then
    echo "$t: FINDING (see $work/log.txt and $work/crash-* etc.)" >&2
    tail -n 40 "$work/log.txt" >&2
    status=1
  fi
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)|cov: " "$work/log.txt" | tail -n 3
done
exit $status
