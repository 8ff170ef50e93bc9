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
# Env: MODELS (default "llama8b"; also llama1b, llama8b_km, llama8b_k5m, qwen32b, llama70b), PP (512), TG (128), REPS (3).
set -uo pipefail
MODELS=${MODELS:-llama8b}
PP=${PP:-512} TG=${TG:-128} REPS=${REPS:-3}
OUT=${OUT:-/tmp/peer-models}
B=.device/bench BIN=/tmp/bench-bin
mkdir -p "$BIN" "$OUT"
unxz() { python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" "$1" "$2"; }
for f in libcudart.so.13 llama-bench-cuda; do [ -f "$B/$f.xz" ] && unxz "$B/$f.xz" "$BIN/$f"; done
chmod +x "$BIN"/* 2>/dev/null
# One large model per call: the device's disk holds 64 GiB (70B Q4_0 is ~40 GB).
declare -A GEN=(
  [llama1b]="--shape llama1b"
  [llama8b]="--shape llama8b --name Llama-3.1-8B-shaped"
  [llama8b_km]="--shape llama8b --mix q4_k_m --name Llama-3.1-8B-shaped-Q4_K_M"
  [llama8b_k5m]="--shape llama8b --mix q5_k_m --name Llama-3.1-8B-shaped-Q5_K_M"
  [qwen32b]="--shape qwen32b --name Qwen2.5-32B-shaped"
  [llama70b]="--shape llama70b --name Llama-3.1-70B-shaped")
for m in $MODELS; do
  [ -n "${GEN[$m]:-}" ] || { echo "peer_models.sh: unknown model $m (${!GEN[*]})" >&2; exit 2; }
  [ -s "/tmp/$m.gguf" ] || python3 bench/make_bench_gguf.py "/tmp/$m.gguf" --seed 0 ${GEN[$m]} >"$OUT/gen-$m.log" 2>&1 &
done
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
  model=/tmp/$m.gguf
  timeout 150 .device/wgrt bench --model "$model" -p "$PP" -n "$TG" -r "$REPS" --json "$OUT/wgrt-$m.json" >"$OUT/wgrt-$m.out" 2>&1
  w=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r={x['name']:round(x['tok_s']['median'],1) for x in d['tests']}; print(r.get('pp$PP','?'), r.get('tg$TG','?'))" "$OUT/wgrt-$m.json" 2>/dev/null || echo "failed failed")
  echo "| $m | wgrt | ${w% *} | ${w#* } |"
  [ -x "$BIN/llama-bench-cuda" ] || continue
  LD_LIBRARY_PATH="$BIN:$(dirname "${cublas:-/x/y}"):${LD_LIBRARY_PATH:-}" timeout 150 "$BIN/llama-bench-cuda" -m "$model" \
      -p "$PP" -n "$TG" -r "$REPS" -ngl 99 -o json >"$OUT/llamacpp-cuda-$m.json" 2>"$OUT/llamacpp-cuda-$m.err"
  l=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r={('pp' if x['n_prompt'] else 'tg'):x['avg_ts'] for x in d}; print(round(r.get('pp',0),1), round(r.get('tg',0),1))" "$OUT/llamacpp-cuda-$m.json" 2>/dev/null || echo "failed failed")
  echo "| $m | llama.cpp CUDA | ${l% *} | ${l#* } |"
done
