#!/usr/bin/env bash
# Session 26, one device call (~7 minutes): bench/device/s26_lean.sh (the 8B
# Q4_K_M and Q4_0 files old/new beside llama.cpp CUDA), then where the 8B
# Q4_0 decode step goes (the GEMV's switches and timing probes, profiled).
# Stage: WGRT_BUILD_DIR=build bench/device/stage_bench.sh, the previous
# binary as .device/wgrt_old; cp bench/device/s26.sh .device/run.sh.
set -u
bash bench/device/s26_lean.sh
source bench/device/common.sh > /dev/null
echo "== the 8B Q4_0: the GEMV's switches and probes (t=$SECONDS)"
WGRT=.device/wgrt MODELS=llama8b REPS=3 STEP_S=40 \
VARIANTS="${VARIANTS:-planar probe-no-weights act-f32 f32probe-no-x}" \
  bash bench/variants_decode.sh 2>&1 | sed -n '/=== table/,$p' | tail -n 45
echo "t=$SECONDS end"
