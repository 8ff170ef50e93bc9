#!/usr/bin/env bash
# One device call: a new wgrt against an older one (.device/wgrt-old, copied
# in after bench/device/stage_bench.sh, which empties .device) on the 1B and
# 8B shapes, pp512/tg128, interleaved (old, new, old, new); then
# bench/load_memory.sh on the 8B file. Session 20 wrote it for the prefill
# GEMM's normalization fix (e182791) and the streamed loader; owed there.
#   device call: command `bash bench/device/ab_and_load.sh`, carry [".device"]
set -uo pipefail
OUT=${OUT:-/tmp/ab-and-load}
source bench/device/env.sh .device
export PYTHONPATH=$PWD/.device/py
mkdir -p "$OUT/load" "$OUT/ab"
python3 bench/make_bench_gguf.py /tmp/llama1b.gguf --seed 0 --shape llama1b >/dev/null 2>&1 &
python3 bench/make_bench_gguf.py /tmp/llama8b.gguf --seed 0 --shape llama8b >/dev/null 2>&1 &
wait
echo "| model | binary | pp512 | tg128 |"
for m in llama1b llama8b; do for b in wgrt-old wgrt wgrt-old wgrt; do
  timeout 100 .device/$b bench --model /tmp/$m.gguf -p 512 -n 128 -r 3 --json $OUT/ab/$b-$m.json > $OUT/ab/$b-$m.out 2>&1
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r={x['name']:round(x['tok_s']['median'],1) for x in d['tests']}; print('|', sys.argv[2], '|', sys.argv[3], '|', r.get('pp512'), '|', r.get('tg128'), '|')" $OUT/ab/$b-$m.json $m $b 2>/dev/null || echo "| $m | $b | failed |"
done; done
OUT=$OUT/load timeout 120 bash bench/load_memory.sh /tmp/llama8b.gguf 2>&1 | tail -3
grep -a "error" $OUT/load/*.log | cut -c1-150
