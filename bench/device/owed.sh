#!/usr/bin/env bash
# Every measurement owed as of session 24's end, in one device call (about 9
# minutes). Session 24's four calls are in bench/RESULTS.md; what they left:
#   1. the multi-row GEMV as it landed (`b4bbc36`: f32 x from K 4,096, int8
#      below; at most 8 rows for wide models), new against .device/wgrt-old
#      (the binary before it): 8B and Llama-1B, short prompts and batches;
#   2. wgrt serve beside llama-server again, after a round began running a
#      chunk of prompt tokens (a burst's prompts in one round; `84a9a4c`):
#      mean time to first token at 8 and 32 streams was 0.3-2.0 s;
#   3. the 70B's 3-token prompt through the GEMV (it took 0.60 s through the
#      GEMM) and its decode, with the peer's llama-bench beside it.
# Stage: WGRT_BUILD_DIR=build bench/device/stage_bench.sh; cp OLD_BUILD/wgrt
# .device/wgrt-old; cp bench/device/owed.sh .device/run.sh; then
# `bash .device/run.sh` there (carry [".device"]); tables on stdout.
set -u
source bench/device/env.sh .device; export PYTHONPATH=$PWD/.device/py
nvidia-smi --query-gpu=name --format=csv,noheader; cat .device/COMMIT
B=.device/bench BIN=/tmp/peer-bin; mkdir -p $BIN
unxz() { python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" "$1" "$2"; }
[ -f $BIN/libcudart.so.13 ] || unxz $B/libcudart.so.13.xz $BIN/libcudart.so.13
if [ ! -x $BIN/llama-server ]; then
  ( TARGETS="llama-bench llama-server" nice -n 19 timeout 480 \
      bash bench/peer/build_cuda_here.sh $B/llama.cpp-src.tar.xz $BIN/llama-bench-cuda 16 > /tmp/peer-build.log 2>&1 ) &
fi
S=/tmp/smollm2-135m-q4_1.gguf L1=/tmp/llama1b-q4_0.gguf L8=/tmp/llama8b.gguf L70=/tmp/llama70b.gguf
[ -s $S ] || python3 bench/random_gguf.py fill $B/smollm2-135m-q4_1.skel.gguf $S --seed 0 > /dev/null
[ -s $L1 ] || python3 bench/make_bench_gguf.py $L1 --seed 0 > /dev/null 2>&1
[ -s $L8 ] || python3 bench/make_bench_gguf.py $L8 --seed 0 --shape llama8b > /dev/null 2>&1
( [ -s $L70 ] || python3 bench/make_bench_gguf.py $L70 --seed 0 --shape llama70b > /dev/null 2>&1 ) &
gen70=$!
row() { grep -E "^(pp|tg)[0-9]+(/x[0-9]+)? " | awk '{printf "%s=%s ", $1, $3} END {print ""}'; }
echo "== 1. multi-row GEMV as landed (16 slots; old/new/old/new)"
for w in wgrt-old wgrt wgrt-old wgrt; do
  echo "$w L8: $(timeout 100 .device/$w bench --model $L8 -p 4,8,16 -n 128 -r 3 --parallel 1,4,8,16 2>&1 | row)"
  echo "$w L1: $(timeout 60 .device/$w bench --model $L1 -p 3,8,16 -n 128 -r 3 --parallel 1,8,16 2>&1 | row)"
done
echo "t=$SECONDS"
wait $gen70
echo "== 3. the 70B: a 3-token prompt, then pp512/tg128"
timeout 90 .device/wgrt generate --model $L70 --prompt-tokens 1,2,3 -n 8 --temp 0 --ignore-eos 2>&1 | grep -E "^prompt:|^generation:"
timeout 120 .device/wgrt bench --model $L70 -p 3,512 -n 128 -r 3 2>&1 | row
echo "t=$SECONDS"
echo "== 2. serve beside llama-server"
wait
tail -1 /tmp/peer-build.log
cublas=$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libcublas.so.13' -print 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$BIN:$(dirname "${cublas:-/x/y}"):${LD_LIBRARY_PATH:-}"
for m in S L1; do
  timeout 100 python3 bench/serve_load.py --wgrt .device/wgrt --model ${!m} --streams 1,8,32 --tokens 128 --requests 1 2>&1 | tail -3
  [ -x $BIN/llama-server ] && timeout 100 python3 bench/serve_load.py --llama-server $BIN/llama-server --model ${!m} --streams 1,8,32 --tokens 128 --requests 1 2>&1 | tail -3
done
echo "t=$SECONDS end"
