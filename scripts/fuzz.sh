#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) into build-san/ with clang-15 and
# runs each for SECONDS (default 30) from its seeds: the committed ones in
# tests/fuzz/seeds/<target>/ and the fixture files that are valid inputs.
# Findings (crash-*, leak-*, timeout-*, oom-*) land in build-san/fuzz/<target>/
# and fail the script. Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
# Needs clang-15 and libfuzzer-15-dev (scripts/setup.sh installs them): a
# missing clang is an error, never a skip.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-30}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(fuzz_gguf fuzz_pte fuzz_ptd fuzz_tokenizer fuzz_chat_template)

command -v clang++-15 >/dev/null || { echo "fuzz.sh: clang++-15 is missing: run scripts/setup.sh" >&2; exit 1; }
scripts/configure_san.sh
cmake --build build-san -j"$(nproc)" --target "${TARGETS[@]}"

fixtures=tests/fixtures
seeds_of() {
  case "$1" in
    fuzz_gguf) echo "$fixtures"/gguf/*.gguf "$fixtures"/llama/*.gguf ;;
    fuzz_pte) echo "$fixtures"/pte/*.pte "$fixtures"/llama/*.pte ;;
    fuzz_ptd) echo "$fixtures"/pte/*.ptd ;;
  esac
}

status=0
for t in "${TARGETS[@]}"; do
  work=build-san/fuzz/$t
  mkdir -p "$work/corpus"
  for f in $(seeds_of "$t"); do cp -n "$f" "$work/corpus/" 2>/dev/null || true; done
  [ -d "tests/fuzz/seeds/$t" ] && cp -n tests/fuzz/seeds/"$t"/* "$work/corpus/" 2>/dev/null || true
  # Inputs up to 128 KiB: the tiny .pte Llama (95 KiB) stays a whole seed.
  echo "== $t: ${SECONDS_EACH}s"
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
      "build-san/tests/fuzz/$t" "$work/corpus" -max_total_time="$SECONDS_EACH" -max_len=131072 \
      -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 -artifact_prefix="$work/" -print_final_stats=1 \
      2>"$work/log.txt"; then
    echo "$t: FINDING (see $work/log.txt and $work/crash-* etc.)" >&2
    tail -n 40 "$work/log.txt" >&2
    status=1
  fi
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)|cov: " "$work/log.txt" | tail -n 3
done
exit $status
