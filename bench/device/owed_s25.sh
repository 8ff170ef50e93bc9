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
source bench/device/env.sh .device; export PYTHONPATH=$PWD/.device/py
nvidia-smi --query-gpu=name --format=csv,noheader; cat .device/COMMIT
B=.device/bench BIN=/tmp/peer-bin; mkdir -p $BIN
unxz() { python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" "$1" "$2"; }
[ -f $BIN/libcudart.so.13 ] || unxz $B/libcudart.so.13.xz $BIN/libcudart.so.13
if [ ! -x $BIN/llama-server ]; then
  ( TARGETS="llama-server" nice -n 19 timeout 420 \
      bash bench/peer/build_cuda_here.sh $B/llama.cpp-src.tar.xz $BIN/llama-bench-cuda 16 > /tmp/peer-build.log 2>&1 ) &
fi
S=/tmp/smollm2-135m-q4_1.gguf L1=/tmp/llama1b-q4_0.gguf L8=/tmp/llama8b.gguf
[ -s $S ] || python3 bench/random_gguf.py fill $B/smollm2-135m-q4_1.skel.gguf $S --seed 0 > /dev/null
[ -s $L1 ] || python3 bench/make_bench_gguf.py $L1 --seed 0 > /dev/null 2>&1
( [ -s $L8 ] || python3 bench/make_bench_gguf.py $L8 --seed 0 --shape llama8b > /dev/null 2>&1 ) &
gen8=$!
row() { grep -E "^(pp|tg)[0-9]+(/x[0-9]+)? " | awk '{printf "%s=%s ", $1, $3} END {print ""}'; }
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
cublas=$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libcublas.so.13' -print 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$BIN:$(dirname "${cublas:-/x/y}"):${LD_LIBRARY_PATH:-}"
for m in S L1; do
  timeout 80 python3 bench/serve_load.py --wgrt .device/wgrt --model ${!m} --streams 1,8,32 --tokens 128 --requests 1 2>&1 | tail -3
  [ -x $BIN/llama-server ] && timeout 80 python3 bench/serve_load.py --llama-server $BIN/llama-server --model ${!m} --streams 1,8,32 --tokens 128 --requests 1 2>&1 | tail -3
done
echo "t=$SECONDS end"
