#!/usr/bin/env bash
# Session 25's first device call (about 9.5 minutes), three binaries:
#   .device/wgrt          the sampler as the graph's tail op (7bc3400 on)
#   .device/wgrt-old      the commit before it (442a2ba): issue 32 asks the
#                         new binary's tg128/pp512 >= 0.98x the old one's
#   .device/wgrt-s24      before the multi-row GEMV took f32 x (session 24's
#                         "old"): the landed rule's 8B figures, owed
# then wgrt serve beside llama-server at 1/8/32 streams (after a round began
# running a chunk of prompt tokens: the burst's prompts in one round).
# Stage: WGRT_BUILD_DIR=build bench/device/stage_bench.sh; copy the two old
# binaries in; cp bench/device/owed_s25.sh .device/run.sh; run
# `bash .device/run.sh` there (carry [".device"]); tables on stdout.
set -u
source bench/device/common.sh
build_peer llama-server
S=/tmp/smollm2-135m-q4_1.gguf L1=/tmp/llama1b-q4_0.gguf L8=/tmp/llama8b.gguf
smollm2 $S
llama_gguf $L1
llama_gguf $L8 --shape llama8b &
gen8=$!
echo "== 1. the sampler as the graph's tail: old (442a2ba) / new, twice"
for w in wgrt-old wgrt wgrt-old wgrt; do
  echo "$w S:  $(timeout 60 .device/$w bench --model $S -p 512 -n 128 -r 3 --parallel 1,8,32 2>&1 | row)"
  echo "$w L1: $(timeout 60 .device/$w bench --model $L1 -p 512 -n 128 -r 3 --parallel 1,8,32 2>&1 | row)"
done
echo "t=$SECONDS"
wait $gen8
echo "== 2. the 8B: s24 (int8-x multi-row) / old / new"
for w in wgrt-s24 wgrt-old wgrt; do
  echo "$w L8: $(timeout 100 .device/$w bench --model $L8 -p 4,8,16,512 -n 128 -r 3 --parallel 1,4,8 2>&1 | row)"
done
echo "t=$SECONDS"
echo "== 3. serve beside llama-server"
wait
tail -1 /tmp/peer-build.log
peer_libs
for m in S L1; do
  timeout 80 python3 bench/serve_load.py --wgrt .device/wgrt --model ${!m} --streams 1,8,32 --tokens 128 --requests 1 2>&1 | tail -3
  [ -x $BIN/llama-server ] && timeout 80 python3 bench/serve_load.py --llama-server $BIN/llama-server --model ${!m} --streams 1,8,32 --tokens 128 --requests 1 2>&1 | tail -3
done
echo "t=$SECONDS end"
