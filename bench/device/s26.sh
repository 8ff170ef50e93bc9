#!/usr/bin/env bash
# Session 26, one device call (~6 minutes): Q4_K and Q6_K in the planar
# layout (issue 37's 8B rows: Q4_K_M, and Q4_0 with its Q6_K head) old/new
# beside llama.cpp CUDA, and where the 8B Q4_0 decode step goes (GEMV
# switches and timing probes, profiled).
# Stage: WGRT_BUILD_DIR=build bench/device/stage_bench.sh, the previous
# binary as .device/wgrt_old; cp bench/device/s26.sh .device/run.sh.
set -u
source bench/device/common.sh
build_peer llama-bench
L8=/tmp/llama8b.gguf KM=/tmp/llama8b_km.gguf
llama_gguf $KM --shape llama8b --mix q4_k_m &
km=$!
llama_gguf $L8 --shape llama8b
wait $km
echo "== 1. 8B Q4_K_M and Q4_0 old/new/old/new (t=$SECONDS)"
for m in $KM $L8; do
  for b in wgrt_old wgrt wgrt_old wgrt; do
    echo "$(basename $m) $b: $(timeout 60 .device/$b bench --model $m -p 512 -n 128 -r 3 2>&1 | row)"
  done
done
for b in wgrt_old wgrt; do
  echo "-- $b Q4_K_M profile"
  timeout 60 .device/$b bench --model $KM -p 0 -n 128 -r 3 --max-seconds 8 --profile --top 10 2>&1 | grep -A12 "^profile:"
done
echo "== 2. 8B Q4_0: the GEMV's switches and probes (t=$SECONDS)"
WGRT=.device/wgrt MODELS=llama8b REPS=3 STEP_S=40 \
VARIANTS="${VARIANTS:-planar probe-no-weights act-f32 f32probe-no-x}" \
  bash bench/variants_decode.sh 2>&1 | sed -n '/=== table/,$p' | tail -n 45
echo "== 3. llama.cpp CUDA (t=$SECONDS)"
wait
tail -1 /tmp/peer-build.log
peer_libs
for m in $KM $L8; do
  [ -x $BIN/llama-bench-cuda ] && timeout 100 $BIN/llama-bench-cuda -m $m -p 512 -n 128 -r 3 -ngl 99 2>&1 | grep -E "pp512|tg128"
done
echo "t=$SECONDS end"
