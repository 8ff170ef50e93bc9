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
source bench/device/env.sh .device; export PYTHONPATH=$PWD/.device/py
nvidia-smi --query-gpu=name --format=csv,noheader; cat .device/COMMIT
B=.device/bench BIN=/tmp/peer-bin; mkdir -p $BIN
unxz() { python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" "$1" "$2"; }
[ -f $BIN/libcudart.so.13 ] || unxz $B/libcudart.so.13.xz $BIN/libcudart.so.13
if [ ! -x $BIN/llama-bench-cuda ]; then
  ( nice -n 19 timeout 420 bash bench/peer/build_cuda_here.sh $B/llama.cpp-src.tar.xz $BIN/llama-bench-cuda 16 \
      > /tmp/peer-build.log 2>&1 ) &
fi
L70=/tmp/llama70b.gguf Q32=/tmp/qwen32b.gguf
( [ -s $Q32 ] || python3 bench/make_bench_gguf.py $Q32 --seed 0 --shape qwen32b > /dev/null 2>&1 ) &
gen32=$!
[ -s $L70 ] || python3 bench/make_bench_gguf.py $L70 --seed 0 --shape llama70b > /dev/null 2>&1
row() { grep -E "^(pp|tg)[0-9]+(/x[0-9]+)? " | awk '{printf "%s=%s ", $1, $3} END {print ""}'; }
echo "== 1. the 70B: a 3-token prompt, then pp512/tg128 (t=$SECONDS)"
timeout 90 .device/wgrt generate --model $L70 --prompt-tokens 1,2,3 -n 8 --temp 0 --ignore-eos 2>&1 | grep -E "^prompt:|^generation:"
echo "wgrt 70B: $(timeout 150 .device/wgrt bench --model $L70 -p 3,512 -n 128 -r 3 2>&1 | row)"
wait $gen32
echo "== 2. Qwen2.5-32B-shaped Q4_0 (t=$SECONDS)"
echo "wgrt 32B: $(timeout 120 .device/wgrt bench --model $Q32 -p 512 -n 128 -r 3 2>&1 | row)"
wait
tail -1 /tmp/peer-build.log
cublas=$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libcublas.so.13' -print 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$BIN:$(dirname "${cublas:-/x/y}"):${LD_LIBRARY_PATH:-}"
[ -x $BIN/llama-bench-cuda ] && timeout 120 $BIN/llama-bench-cuda -m $Q32 -p 512 -n 128 -r 3 -ngl 99 2>&1 | grep -E "pp512|tg128"
echo "t=$SECONDS end"
