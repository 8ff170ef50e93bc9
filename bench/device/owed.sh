#!/usr/bin/env bash
# The measurement owed as of session 24's fourth call (about 4 minutes): the
# multi-row GEMV with f32 x and at most 8 rows for wide models (issues 33 and
# 37), new against the previous commit's binary (.device/wgrt-old), on the
# 8B, Llama-1B and SmolLM2 shapes: short prompts (pp2..pp16) and batched
# decode (--parallel). Session 24's earlier calls: see bench/RESULTS.md.
# Stage: WGRT_BUILD_DIR=build bench/device/stage_bench.sh; cp OLD_BUILD/wgrt
# .device/wgrt-old; cp bench/device/owed.sh .device/run.sh; then run
# `bash .device/run.sh` there (carry [".device"]).
set -u
source bench/device/env.sh .device; export PYTHONPATH=$PWD/.device/py
nvidia-smi --query-gpu=name --format=csv,noheader; cat .device/COMMIT
S=/tmp/smollm2-135m-q4_1.gguf L1=/tmp/llama1b-q4_0.gguf L8=/tmp/llama8b.gguf
[ -s $S ] || python3 bench/random_gguf.py fill .device/bench/smollm2-135m-q4_1.skel.gguf $S --seed 0 > /dev/null
[ -s $L1 ] || python3 bench/make_bench_gguf.py $L1 --seed 0 > /dev/null 2>&1
[ -s $L8 ] || python3 bench/make_bench_gguf.py $L8 --seed 0 --shape llama8b > /dev/null 2>&1
row() { grep -E "^(pp|tg)[0-9]+(/x[0-9]+)? " | awk '{printf "%s=%s ", $1, $3} END {print ""}'; }
for w in wgrt-old wgrt wgrt-old wgrt; do
  echo "$w L8: $(timeout 100 .device/$w bench --model $L8 -p 2,4,8,16 -n 128 -r 3 --parallel 1,4,8,16 2>&1 | row)"
  echo "$w L1: $(timeout 60 .device/$w bench --model $L1 -p 3,8,16 -n 128 -r 3 --parallel 1,8,16 2>&1 | row)"
  echo "$w S: $(timeout 60 .device/$w bench --model $S -p 3,8 -n 128 -r 3 --parallel 1,8,32 2>&1 | row)"
  echo "t=$SECONDS"
done
