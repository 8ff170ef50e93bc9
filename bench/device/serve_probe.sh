#!/usr/bin/env bash
# Where wgrt serve's batched throughput went (session 25): on the H100 its
# aggregate tokens/s stayed at ~1,000 from 1 to 32 streams, and the mean time
# to a first token of 32 streams was ~1.9 s, while `wgrt bench --parallel`
# reached 2,900 tok/s at 8 rows and 6,780 at 32 with the same engine. The
# worker held the queue's lock through each step (fixed in 76814c2); this
# measures the server again, streamed and with whole answers, beside the
# engine alone and llama-server (built there meanwhile). About 5 minutes.
# Stage as owed_s25.sh; `bash .device/run.sh` (carry [".device"]).
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
S=/tmp/smollm2-135m-q4_1.gguf L1=/tmp/llama1b-q4_0.gguf
[ -s $S ] || python3 bench/random_gguf.py fill $B/smollm2-135m-q4_1.skel.gguf $S --seed 0 > /dev/null
[ -s $L1 ] || python3 bench/make_bench_gguf.py $L1 --seed 0 > /dev/null 2>&1
row() { grep -E "^(pp|tg)[0-9]+(/x[0-9]+)? " | awk '{printf "%s=%s ", $1, $3} END {print ""}'; }
for m in S L1; do
  echo "bench ${m}: $(timeout 60 .device/wgrt bench --model ${!m} -p 0 -n 128 -r 3 --parallel 1,8,32 2>&1 | row)"
  for mode in "" "--no-stream"; do
    timeout 100 python3 bench/serve_load.py --wgrt .device/wgrt --model ${!m} --streams 1,8,32 --tokens 128 --requests 1 $mode 2>&1 | tail -3
  done
done
echo "t=$SECONDS"
wait
tail -1 /tmp/peer-build.log
cublas=$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libcublas.so.13' -print 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$BIN:$(dirname "${cublas:-/x/y}"):${LD_LIBRARY_PATH:-}"
for m in S L1; do
  [ -x $BIN/llama-server ] && timeout 80 python3 bench/serve_load.py --llama-server $BIN/llama-server --model ${!m} --streams 1,8,32 --tokens 128 --requests 1 2>&1 | tail -3
done
echo "t=$SECONDS end"
