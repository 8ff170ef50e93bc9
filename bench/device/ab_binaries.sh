#!/usr/bin/env bash
# One device call: wgrt builds against each other on the Llama-3.2-1B and
# Llama-3.1-8B shapes (SHAPES), pp512/tg128, interleaved ROUNDS times (2:
# a b c, a b c) so that a drift of the machine shows as a drift, not as a
# difference.
#   bash bench/device/ab_binaries.sh wgrt-old wgrt-head wgrt
#   SHAPES=llama1b ROUNDS=4 bash bench/device/ab_binaries.sh wgrt-old wgrt
# Each name is an executable in .device/ (copy older builds there after
# bench/device/stage_bench.sh, which empties it); carry [".device"].
set -uo pipefail
OUT=${OUT:-/tmp/ab-binaries}
SHAPES=${SHAPES:-llama1b llama8b}
ROUNDS=${ROUNDS:-2}
source bench/device/shapes.sh $SHAPES
echo "| model | binary | pp512 | tg128 |"
echo "| --- | --- | ---: | ---: |"
for m in $SHAPES; do for round in $(seq $ROUNDS); do for b in "$@"; do
  timeout 120 .device/$b bench --model /tmp/$m.gguf -p 512 -n 128 -r 3 --json "$OUT/$b-$m-$round.json" \
    >"$OUT/$b-$m-$round.out" 2>&1
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r={x['name']:round(x['tok_s']['median'],1) for x in d['tests']}; print('|', sys.argv[2], '|', sys.argv[3], '|', r.get('pp512'), '|', r.get('tg128'), '|')" \
    "$OUT/$b-$m-$round.json" $m $b 2>/dev/null || echo "| $m | $b | failed | |"
done; done; done
