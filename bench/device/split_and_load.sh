#!/usr/bin/env bash
# One device call (session 21): on the Llama-3.2-1B and Llama-3.1-8B shapes,
#   1. the prefill GEMM normalization fix (e182791) A/B: .device/wgrt-old (a
#      build of e182791^, copied in after bench/device/stage_bench.sh) against
#      .device/wgrt, pp512/tg128 interleaved (old, new, old, new);
#   2. what a layer split costs on one GPU: --devices 0 against --devices 0,0
#      (two devices of the one adapter, --test-devices-may-repeat);
#   3. load time with the weights read and repacked on worker threads
#      (default) against the loading thread alone (WGRT_UPLOAD_THREADS=0),
#      through bench/load_memory.sh on the 8B file.
#   device call: command `bash bench/device/split_and_load.sh`, carry [".device"]
set -uo pipefail
OUT=${OUT:-/tmp/split-and-load}
source bench/device/shapes.sh llama1b llama8b
row() {  # json, label...
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r={x['name']:round(x['tok_s']['median'],1) for x in d['tests']}; print('|', ' | '.join(sys.argv[2:]), '|', r.get('pp512'), '|', r.get('tg128'), '|')" "$@" 2>/dev/null ||
    echo "| ${*:2} | failed | |"
}
bench() {  # tag, binary, model, extra args...
  local tag=$1 bin=$2 m=$3; shift 3
  timeout 120 .device/$bin bench --model /tmp/$m.gguf -p 512 -n 128 -r 3 --json "$OUT/$tag-$m.json" "$@" \
    >"$OUT/$tag-$m.out" 2>&1
  row "$OUT/$tag-$m.json" "$m" "$tag"
}
echo "| model | run | pp512 | tg128 |"
echo "| --- | --- | ---: | ---: |"
for m in llama1b llama8b; do
  if [ -x .device/wgrt-old ]; then
    bench old1 wgrt-old $m; bench new1 wgrt $m; bench old2 wgrt-old $m; bench new2 wgrt $m
  fi
  bench one-device wgrt $m --devices 0
  bench split-0,0 wgrt $m --devices 0,0 --test-devices-may-repeat
done
for threads in 0 default; do
  if [ $threads = default ]; then unset WGRT_UPLOAD_THREADS; else export WGRT_UPLOAD_THREADS=$threads; fi
  echo "upload threads: $threads"
  OUT=$OUT/load-$threads timeout 150 bash bench/load_memory.sh /tmp/llama8b.gguf 2>&1 | tail -3
done
grep -a "error" "$OUT"/*.out "$OUT"/load-*/*.log 2>/dev/null | cut -c1-160 | head
