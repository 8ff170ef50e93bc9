#!/usr/bin/env bash
# Where wgrt serve's batched throughput goes (session 25): on the H100 its
# aggregate tokens/s stayed at ~1,000 from 1 to 32 streams, while `wgrt bench
# --parallel` reached 2,900 at 8 rows and 6,780 at 32 with the same engine.
# Streamed against whole answers (no per-token events) at 1/8/32 streams,
# beside the engine alone. Stage as owed_s25.sh; `bash .device/run.sh`.
set -u
source bench/device/env.sh .device; export PYTHONPATH=$PWD/.device/py
nvidia-smi --query-gpu=name --format=csv,noheader; cat .device/COMMIT
B=.device/bench S=/tmp/smollm2-135m-q4_1.gguf
[ -s $S ] || python3 bench/random_gguf.py fill $B/smollm2-135m-q4_1.skel.gguf $S --seed 0 > /dev/null
row() { grep -E "^(pp|tg)[0-9]+(/x[0-9]+)? " | awk '{printf "%s=%s ", $1, $3} END {print ""}'; }
echo "bench: $(timeout 60 .device/wgrt bench --model $S -p 0 -n 128 -r 3 --parallel 1,8,32 2>&1 | row)"
for mode in "" "--no-stream"; do
  timeout 100 python3 bench/serve_load.py --wgrt .device/wgrt --model $S --streams 1,8,32 --tokens 128 --requests 1 $mode 2>&1 | tail -3
done
echo "t=$SECONDS end"
