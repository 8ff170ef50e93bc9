#!/usr/bin/env bash
# The fuzz campaigns at once on a machine with more cores than this one
# (the lent H200 host has 16): the sanitizer build's targets travel there, each
# runs scripts/fuzz_campaign.sh with several fork-mode workers, and the logs,
# findings and grown corpora come back.
#   here:  scripts/fuzz_campaign_device.sh stage     (fills .fuzz/, git-ignored)
#   there: bash scripts/fuzz_campaign_device.sh run CPU_SECONDS WORKERS
#          (device tool: carry [".fuzz"]; results under $OUT)
# TARGETS (at staging) picks some of them; the run takes those staged.
# BUILD_SAN (default build-san) names the sanitizer build to take them from.
set -euo pipefail
cd "$(dirname "$0")/.."
all="fuzz_gguf fuzz_pte fuzz_ptd fuzz_tokenizer fuzz_chat_template fuzz_openai_request fuzz_tool_calls fuzz_grammar"

case ${1:-} in
stage)
  targets=${TARGETS:-$all} san=${BUILD_SAN:-build-san}
  rm -rf .fuzz && mkdir -p .fuzz
  cmake --build "$san" -j"$(nproc)" --target $targets >/dev/null
  for t in $targets; do xz -T0 -6 -c "$san/tests/fuzz/$t" >".fuzz/$t.xz"; done
  wgpu_dir=$(python3 -c "import importlib.util, os; print(os.path.join(os.path.dirname(importlib.util.find_spec('wgpu').origin), 'resources'))")
  xz -T0 -6 -c "$wgpu_dir/libwgpu_native-release.so" >.fuzz/libwgpu_native-release.so.xz
  { git rev-parse --short HEAD; git diff --quiet HEAD -- src include tests/fuzz || echo "+uncommitted"; } | paste -sd '' >.fuzz/COMMIT
  du -sh .fuzz
  ;;
run)
  budget=$2 workers=$3
  targets=$(cd .fuzz && ls fuzz_*.xz | sed 's/\.xz$//' | tr '\n' ' ')
  out=${OUT:-/tmp/fuzz-out}
  bin=/tmp/fuzz-bin work=/tmp/fuzz-work
  rm -rf "$bin" "$work" && mkdir -p "$bin" "$work" "$out"
  # No xz there: python's lzma unpacks.
  for f in .fuzz/*.xz; do
    python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
      "$f" "$bin/$(basename "${f%.xz}")"
  done
  chmod +x "$bin"/fuzz_*
  export LD_LIBRARY_PATH="$bin:${LD_LIBRARY_PATH:-}" WGRT_FIXTURES_DIR="$PWD/tests/fixtures"
  echo "commit $(cat .fuzz/COMMIT), $(nproc) cores, $budget CPU-s per target, $workers workers each, $(date -u)"
  for t in $targets; do
    FUZZ_BIN_DIR=$bin FUZZ_WORK_DIR=$work FUZZ_WORKERS=$workers \
      scripts/fuzz_campaign.sh "$budget" "$t" >"$out/$t.summary" 2>&1 &
  done
  wait
  for t in $targets; do
    cp "$work/$t/log.txt" "$out/$t.log"
    find "$work/$t" -maxdepth 1 -type f -regextype egrep -regex '.*/(crash|leak|timeout|oom)-.*' -exec cp {} "$out/" \;
    tar cJf "$out/$t.corpus.tar.xz" -C "$work/$t" corpus
  done
  date -u
  for t in $targets; do echo "== $t"; cat "$out/$t.summary"; done
  ;;
*) echo "usage: $0 stage | run CPU_SECONDS WORKERS" >&2; exit 2 ;;
esac
