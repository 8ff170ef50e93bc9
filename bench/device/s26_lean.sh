#!/usr/bin/env bash
# Session 26's device call cut to the budget left (~3-5 minutes): the 8B
# Q4_K_M and Q4_0 files, old binary (Q4_K and Q6_K in ggml's block layout)
# against new (both planar), then llama.cpp CUDA's llama-bench if its build
# (started first, in the background) is done by t = 240 s. Stage as
# this file's header in bench/device/s26.sh says.
set -u
source bench/device/common.sh
build_peer llama-bench
L8=/tmp/llama8b.gguf KM=/tmp/llama8b_km.gguf
llama_gguf $KM --shape llama8b --mix q4_k_m &
km=$!
llama_gguf $L8 --shape llama8b
wait $km
echo "== old/new (t=$SECONDS)"
for m in $KM $L8; do
  for b in wgrt_old wgrt; do
    echo "$(basename $m) $b: $(timeout 45 .device/$b bench --model $m -p 512 -n 128 -r 3 2>&1 | tee /tmp/$b-$(basename $m).out | row)"
    grep -E "^weights:" /tmp/$b-$(basename $m).out
  done
done
echo "-- new, Q4_K_M profile (t=$SECONDS)"
timeout 40 .device/wgrt bench --model $KM -p 0 -n 32 -r 1 --max-seconds 4 --profile --top 8 2>&1 | grep -A10 "^profile:"
echo "== llama.cpp CUDA (t=$SECONDS)"
while [ ! -x $BIN/llama-bench-cuda ] && [ $SECONDS -lt 240 ] && jobs -r | grep -q .; do sleep 2; done
tail -1 /tmp/peer-build.log
peer_libs
for m in $KM $L8; do
  [ -x $BIN/llama-bench-cuda ] && timeout 60 $BIN/llama-bench-cuda -m $m -p 512 -n 128 -r 3 -ngl 99 2>&1 | grep -E "pp512|tg128"
done
echo "t=$SECONDS end"
