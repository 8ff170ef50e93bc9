#!/usr/bin/env bash
# wgrt beside llama.cpp's CUDA llama-bench on larger models (issue 37), in
# one device call: builds llama-bench-cuda there from the staged source
# (bench/peer/build_cuda_here.sh, ~5-7 min on 16 cores) unless
# .device/bench/llama-bench-cuda.xz is carried, then per model runs
# `wgrt bench` and `llama-bench` with the same -p/-n/-r, one after the other
# (nothing builds while either is timed). The built peer comes back xz'd in
# $OUT for the next call to carry.
#
# On the device, after `source bench/device/env.sh .device` and
# PYTHONPATH=$PWD/.device/py:  bash bench/peer_models.sh
# Env: MODELS (default "llama8b"; also llama1b), PP (512), TG (128), REPS (3).
set -uo pipefail
MODELS=${MODELS:-llama8b}
PP=${PP:-512} TG=${TG:-128} REPS=${REPS:-3}
OUT=${OUT:-/tmp/peer-models}
B=.device/bench BIN=/tmp/bench-bin
mkdir -p "$BIN" "$OUT"
unxz() { python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" "$1" "$2"; }
for f in libcudart.so.13 llama-bench-cuda; do [ -f "$B/$f.xz" ] && unxz "$B/$f.xz" "$BIN/$f"; done
chmod +x "$BIN"/* 2>/dev/null
declare -A GEN=(
  [llama1b]="python3 bench/make_llama1b_gguf.py /tmp/llama1b-q4_0.gguf --seed 0"
  [llama8b]="python3 bench/make_llama1b_gguf.py /tmp/llama8b-q4_0.gguf --seed 0 --hidden 4096 --ffn 14336 --layers 32 --output q6_k --name Llama-3.1-8B-shaped")
for m in $MODELS; do [ -s "/tmp/$m-q4_0.gguf" ] || ${GEN[$m]} >"$OUT/gen-$m.log" 2>&1 & done
if [ ! -x "$BIN/llama-bench-cuda" ]; then
  timeout 420 bash bench/peer/build_cuda_here.sh "$B/llama.cpp-src.tar.xz" "$BIN/llama-bench-cuda" 16 >"$OUT/build.log" 2>&1
  echo "peer build: rc=$? $(tail -n 1 "$OUT/build.log")"
  [ -x "$BIN/llama-bench-cuda" ] && xz -T0 -6 -c "$BIN/llama-bench-cuda" >"$OUT/llama-bench-cuda.xz"
fi
wait
cublas=$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libcublas.so.13' -print 2>/dev/null | head -1)
echo "| model | engine | pp$PP tok/s | tg$TG tok/s |"
echo "| --- | --- | ---: | ---: |"
for m in $MODELS; do
  model=/tmp/$m-q4_0.gguf
  timeout 150 .device/wgrt bench --model "$model" -p "$PP" -n "$TG" -r "$REPS" --json "$OUT/wgrt-$m.json" >"$OUT/wgrt-$m.out" 2>&1
  w=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r={x['name']:round(x['tok_s']['median'],1) for x in d['tests']}; print(r.get('pp$PP','?'), r.get('tg$TG','?'))" "$OUT/wgrt-$m.json" 2>/dev/null || echo "failed failed")
  echo "| $m | wgrt | ${w% *} | ${w#* } |"
  [ -x "$BIN/llama-bench-cuda" ] || continue
  LD_LIBRARY_PATH="$BIN:$(dirname "${cublas:-/x/y}"):${LD_LIBRARY_PATH:-}" timeout 150 "$BIN/llama-bench-cuda" -m "$model" \
      -p "$PP" -n "$TG" -r "$REPS" -ngl 99 -o json >"$OUT/llamacpp-cuda-$m.json" 2>"$OUT/llamacpp-cuda-$m.err"
  l=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r={('pp' if x['n_prompt'] else 'tg'):x['avg_ts'] for x in d}; print(round(r.get('pp',0),1), round(r.get('tg',0),1))" "$OUT/llamacpp-cuda-$m.json" 2>/dev/null || echo "failed failed")
  echo "| $m | llama.cpp CUDA | ${l% *} | ${l#* } |"
done
