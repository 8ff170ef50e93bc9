#!/usr/bin/env bash
# Every measurement owed as of session 24's second call, in one device call
# (about 9 minutes). Session 24's first call (8B, 8B Q4_K_M, 70B beside
# llama.cpp CUDA) ran `MODELS="llama8b llama8b_km llama70b" bench/peer_models.sh`
# and `bench/load_memory.sh /tmp/llama70b.gguf`; this one runs, with the
# previous commit's binary as .device/wgrt-old:
#   1. short prompts (issue 37: prompts of up to 16 tokens through the
#      multi-row GEMV): `wgrt bench -p 3,8,16 -n 0`, old and new, 1B and 8B;
#   2. one sampler for a batch's rows (issue 33): `wgrt bench -p 0 -n 128
#      --parallel 1,8,32`, old and new, SmolLM2 and 1B;
#   3. nothing else moved (issue 32): pp512 / tg128 alone, old and new;
#   4. cold loads with read-ahead (issue 37): the 8B from a dropped cache,
#      old / new / old / new;
#   5. wgrt serve beside llama.cpp's llama-server (issue 33): bench/serve_load.py
#      at 1, 8 and 32 streams, SmolLM2 and 1B (the peer built here at nice 19
#      while 1-4 run, as bench/variants_batch.sh does).
# Stage first:
#   WGRT_BUILD_DIR=build bench/device/stage_bench.sh
#   cp OLD_BUILD/wgrt .device/wgrt-old; cp bench/device/owed.sh .device/run.sh
# then run `bash .device/run.sh` there (carry [".device"]); tables on stdout,
# raw files in $OUT/raw.tgz.
set -u
source bench/device/env.sh .device; export PYTHONPATH=$PWD/.device/py
nvidia-smi --query-gpu=name --format=csv,noheader; cat .device/COMMIT
RAW=/tmp/owed-raw; rm -rf $RAW; mkdir -p $RAW
B=.device/bench BIN=/tmp/peer-bin; mkdir -p $BIN
unxz() { python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" "$1" "$2"; }
[ -f $BIN/libcudart.so.13 ] || unxz $B/libcudart.so.13.xz $BIN/libcudart.so.13
if [ ! -x $BIN/llama-server ]; then
  ( TARGETS="llama-bench llama-server" nice -n 19 timeout 480 \
      bash bench/peer/build_cuda_here.sh $B/llama.cpp-src.tar.xz $BIN/llama-bench-cuda 16 > $RAW/build.log 2>&1 ) &
fi
S=/tmp/smollm2-135m-q4_1.gguf L1=/tmp/llama1b-q4_0.gguf L8=/tmp/llama8b.gguf
[ -s $S ] || python3 bench/random_gguf.py fill $B/smollm2-135m-q4_1.skel.gguf $S --seed 0 > /dev/null
[ -s $L1 ] || python3 bench/make_bench_gguf.py $L1 --seed 0 > /dev/null 2>&1
[ -s $L8 ] || python3 bench/make_bench_gguf.py $L8 --seed 0 --shape llama8b > /dev/null 2>&1
med() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join(f\"{t['name']}={t['tok_s']['median']:.1f}\" for t in d['tests']))" "$1" 2>/dev/null || echo failed; }
run() {  # label binary args...
  local label=$1 w=$2; shift 2
  timeout 120 .device/$w bench "$@" --json $RAW/$label.json > $RAW/$label.out 2>&1
  echo "$label: $(med $RAW/$label.json)"
}
echo "== 1. short prompts"
for m in L1 L8; do for w in wgrt-old wgrt; do run short-$m-$w $w --model ${!m} -p 3,8,16 -n 0 -r 5; done; done
echo "t=$SECONDS"
echo "== 2. batches"
for m in S L1; do for w in wgrt-old wgrt; do run par-$m-$w $w --model ${!m} -p 0 -n 128 -r 3 --parallel 1,8,32; done; done
echo "t=$SECONDS"
echo "== 3. alone"
for m in S L1; do for w in wgrt-old wgrt wgrt-old wgrt; do run alone-$m-$w-$SECONDS $w --model ${!m} -p 512 -n 128 -r 3; done; done
echo "t=$SECONDS"
echo "== 4. cold 8B loads"
for w in wgrt-old wgrt wgrt-old wgrt; do
  sync; echo 3 > /proc/sys/vm/drop_caches
  timeout 60 .device/$w generate --model $L8 --prompt-tokens 1,2,3 -n 2 --temp 0 2>&1 | grep -E "uploading [0-9]|done in" | sed "s/^/$w: /"
done
echo "t=$SECONDS"
echo "== 5. serve beside llama-server"
wait
tail -2 $RAW/build.log
cublas=$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libcublas.so.13' -print 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$BIN:$(dirname "${cublas:-/x/y}"):${LD_LIBRARY_PATH:-}"
for m in S L1; do
  timeout 100 python3 bench/serve_load.py --wgrt .device/wgrt --model ${!m} --streams 1,8,32 --tokens 128 --requests 1 2>&1 | tee $RAW/serve-$m-wgrt.txt
  [ -x $BIN/llama-server ] && timeout 100 python3 bench/serve_load.py --llama-server $BIN/llama-server --model ${!m} --streams 1,8,32 --tokens 128 --requests 1 2>&1 | tee $RAW/serve-$m-llama.txt
done
echo "t=$SECONDS end"
tar czf $OUT/raw.tgz -C /tmp owed-raw
