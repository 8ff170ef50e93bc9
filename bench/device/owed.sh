#!/usr/bin/env bash
# The large-model figures still owed after session 25, in one device call
# (about 9 minutes; the disk holds both files, 37 + 18 GiB):
#   1. the 70B's 3-token prompt through the multi-row GEMV (it took 0.60 s
#      through the GEMM in session 24; predicted ~0.1 s) and its pp512/tg128;
#   2. the Qwen2.5-32B-shaped Q4_0 row (issue 37), beside llama.cpp CUDA's
#      llama-bench built there in the same call.
# Still owed after it: the two-GPU row (nvidia-h100-x2: not lent so far), and
# wgrt serve after the lock fix if bench/device/serve_probe.sh has not run.
# Stage: WGRT_BUILD_DIR=build bench/device/stage_bench.sh;
# cp bench/device/owed.sh .device/run.sh; `bash .device/run.sh` there
# (carry [".device"]); tables on stdout.
set -u
source bench/device/common.sh
build_peer llama-bench
L70=/tmp/llama70b.gguf Q32=/tmp/qwen32b.gguf
llama_gguf $Q32 --shape qwen32b &
gen32=$!
llama_gguf $L70 --shape llama70b
echo "== 1. the 70B: a 3-token prompt, then pp512/tg128 (t=$SECONDS)"
timeout 90 .device/wgrt generate --model $L70 --prompt-tokens 1,2,3 -n 8 --temp 0 --ignore-eos 2>&1 | grep -E "^prompt:|^generation:"
echo "wgrt 70B: $(timeout 150 .device/wgrt bench --model $L70 -p 3,512 -n 128 -r 3 2>&1 | row)"
wait $gen32
echo "== 2. Qwen2.5-32B-shaped Q4_0 (t=$SECONDS)"
echo "wgrt 32B: $(timeout 120 .device/wgrt bench --model $Q32 -p 512 -n 128 -r 3 2>&1 | row)"
wait
tail -1 /tmp/peer-build.log
peer_libs
[ -x $BIN/llama-bench-cuda ] && timeout 120 $BIN/llama-bench-cuda -m $Q32 -p 512 -n 128 -r 3 -ngl 99 2>&1 | grep -E "pp512|tg128"
echo "t=$SECONDS end"
