#!/usr/bin/env bash
# Load time and peak host memory of `wgrt generate` on GGUF files, beside the
# time to read each file (issue 37 item 2): the file from the page cache
# (warm: read twice, the second timed) and, where the machine lets us drop
# the cache, from disk (cold, for both the read and wgrt). Load = the run's
# wall time less its prompt and generation; peaks sampled every 10 ms by
# bench/peak_memory.py. The last column adds wgrt's own account of the load
# (its "loading: done in" line: each stage's seconds).
#
# On the device, after `source bench/device/env.sh .device`:
#   bash bench/load_memory.sh /tmp/llama8b.gguf [more.gguf...]
# Env: WGRT (default .device/wgrt, else build/wgrt), OUT (JSON per run).
set -uo pipefail
WGRT=${WGRT:-$( [ -x .device/wgrt ] && echo .device/wgrt || echo build/wgrt )}
OUT=${OUT:-/tmp/load-memory}
mkdir -p "$OUT"
drop_cache() { sync && echo 3 2>/dev/null >/proc/sys/vm/drop_caches; }
seconds() { local t0=$EPOCHREALTIME; "$@" >/dev/null 2>&1; python3 -c "print(f'{$EPOCHREALTIME - $t0:.2f}')"; }
load_run() {  # model, label -> a table row
  local json="$OUT/$(basename "$1" .gguf)-$2.json"
  python3 bench/peak_memory.py --json "$json" -- "$WGRT" generate --model "$1" --prompt-tokens 1,2,3 -n 8 \
      --temp 0 --ignore-eos >"$OUT/$(basename "$1" .gguf)-$2.log" 2>&1
  python3 - "$json" "$OUT/$(basename "$1" .gguf)-$2.log" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1])); log = open(sys.argv[2]).read()
timed = sum(float(x) for x in re.findall(r"tokens in +([\d.]+) s", log))
up = re.search(r"uploading (\d+) MiB in ([\d.]+) s \((\d+) MiB/s\)", log)
gpu = re.search(r"peak on the device ([\d.]+) MiB", log)
stages = re.search(r"loading: done in (.*)", log)
print(f"{r['seconds'] - timed:.1f} | {up.group(2) + ' (' + up.group(3) + ' MiB/s)' if up else '?'} | "
      f"{r['peak_mib']['RssAnon']:.0f} | {gpu.group(1) if gpu else '?'} | rc {r['rc']}"
      f"{'; ' + stages.group(1) if stages else ''}")
PY
}
echo "| model | GiB | read warm s | read cold s | run | load s | upload stage s | peak RssAnon MiB | GPU peak MiB | |"
echo "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |"
for m in "$@"; do
  gib=$(python3 -c "import os,sys; print(f'{os.path.getsize(sys.argv[1]) / 2**30:.2f}')" "$m")
  cold=n/a
  if drop_cache; then
    cold=$(seconds cat "$m")
    drop_cache && echo "| $(basename "$m") | $gib | | | cold | $(load_run "$m" cold)"
  fi
  seconds cat "$m" >/dev/null
  warm=$(seconds cat "$m")
  echo "| $(basename "$m") | $gib | $warm | $cold | warm | $(load_run "$m" warm)"
done
