#!/usr/bin/env bash
# Session 26: where the 8B's decode step goes (issue 37's tg target), in one
# device call of about 4 minutes: bench/variants_decode.sh on the
# Llama-3.1-8B-shaped Q4_0 file with the GEMV's switches and timing probes,
# each run profiled (per-kernel GPU time and weight bandwidth in the table).
# Stage: WGRT_BUILD_DIR=build bench/device/stage_bench.sh;
# cp bench/device/gemv8b.sh .device/run.sh; `bash .device/run.sh` there.
set -u
source bench/device/common.sh
WGRT=.device/wgrt MODELS=llama8b REPS=3 STEP_S=45 \
VARIANTS="${VARIANTS:-planar act-q8 act-f32 probe-no-weights f32probe-no-x f32probe-no-math f32probe-no-weights planar-u2 planar-u8 planar-l16 planar-l8 k-8}" \
  bash bench/variants_decode.sh 2>&1 | tail -n 80
echo "t=$SECONDS sweep end"
# The Q4_K_M mix's kernels (gemv.wgsl's block layout: Q4_K, Q6_K), profiled.
llama_gguf /tmp/llama8b_km.gguf --shape llama8b --mix q4_k_m
timeout 60 .device/wgrt bench --model /tmp/llama8b_km.gguf -p 0 -n 128 -r 3 --max-seconds 8 --profile --top 14 2>&1 | tail -n 22
echo "t=$SECONDS end2"
