#!/usr/bin/env bash
# A long fuzz campaign for one target, measured in CPU time rather than wall
# time (the machine is shared): runs the libFuzzer target at nice 19 in fork
# mode with FUZZ_WORKERS workers (default 1), going on past findings (-ignore_crashes etc.;
# each is saved as build-san/fuzz-campaign/<target>/{crash,leak,timeout,oom}-*),
# and stops it once the process tree has used CPU_SECONDS. New inputs are
# saved in the corpus as they are found.
# Prints the CPU seconds used, executions, coverage and corpus size.
# Usage: scripts/fuzz_campaign.sh CPU_SECONDS TARGET
# FUZZ_BIN_DIR overrides where the built targets are (default build-san/tests/fuzz),
# FUZZ_WORK_DIR where corpora, logs and findings go (default build-san/fuzz-campaign).
set -euo pipefail
cd "$(dirname "$0")/.."
budget=$1 t=$2
bin=${FUZZ_BIN_DIR:-build-san/tests/fuzz}/$t
work=${FUZZ_WORK_DIR:-build-san/fuzz-campaign}/$t
. scripts/fuzz_seeds.sh
fuzz_seed_corpus "$t" "$work/corpus"
log=$work/log.txt
ticks=$(getconf CLK_TCK)

# CPU ticks of a process tree: the leader's own and reaped children's time
# plus the live descendants' own time.
tree_ticks() {
  local root=$1 total=0 p s
  s=$(cut -d' ' -f14-17 "/proc/$root/stat" 2>/dev/null) || { echo -1; return; }
  set -- $s; total=$(( $1 + $2 + $3 + $4 ))
  for p in $(pgrep -s "$(ps -o sid= -p "$root" | tr -d ' ')" | grep -vx "$root"); do
    s=$(cut -d' ' -f14-15 "/proc/$p/stat" 2>/dev/null) || continue
    set -- $s; total=$(( total + $1 + $2 ))
  done
  echo $total
}

ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 setsid nice -n 19 "$bin" "$work/corpus" \
  -fork="${FUZZ_WORKERS:-1}" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_len=131072 \
  -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 -artifact_prefix="$work/" \
  -print_final_stats=1 >"$log" 2>&1 &
pid=$!
used=0
while kill -0 "$pid" 2>/dev/null; do
  sleep 10
  t_now=$(tree_ticks "$pid")
  [ "$t_now" -ge 0 ] && used=$(( t_now / ticks ))
  echo "$used" >"$work/cpu_seconds"
  # The fork-mode parent goes on past SIGINT: end its whole process group.
  if [ "$used" -ge "$budget" ]; then kill -TERM -- "-$pid"; break; fi
done
wait "$pid" || true
echo "$t: ${used} CPU-s"
grep -E "cov: " "$log" | tail -n 1
ls "$work/corpus" | wc -l | sed 's/^/corpus inputs: /'
ls "$work" | grep -E "^(crash|leak|timeout|oom)-" || echo "no findings"
