#!/usr/bin/env bash
# Issue 33 on the device in one call: aggregate decode tokens/s of P
# sequences at once (P in PAR, default 1,8,32), wgrt beside llama.cpp CUDA.
#   wgrt      `wgrt bench -p 0 -n TG --parallel PAR` (tgTG/xP: P one-token
#             prompts, TG greedy tokens each, through api::Batch; tokens/s
#             counted once every sequence has its first token)
#   llama.cpp `llama-batched-bench -npp 1 -ntg TG -npl PAR` (S_TG t/s:
#             generation only), CUDA, built here from the staged source
#             (bench/peer/build_cuda_here.sh) at nice 19 while wgrt runs,
#             unless $BIN/llama-batched-bench exists from an earlier call.
# With WGRT_BASE (an earlier wgrt), both also run pp512/tgTG alone, for the
# "nothing else moved" check (base lacks --parallel). Tables are printed last.
#
# On the device, after `source bench/device/env.sh .device` and
# PYTHONPATH=$PWD/.device/py:  WGRT=.device/wgrt bash bench/variants_batch.sh
# Env: MODELS (default "llama1b smollm2"), TG (128), PP (512), REPS (3),
# PAR (1,8,32), WGRT_BASE (optional), SKEL.
set -uo pipefail
[ -f bench/make_bench_gguf.py ] || { echo "run from the repository root" >&2; exit 2; }
WGRT=${WGRT:-build/wgrt}
WGRT_BASE=${WGRT_BASE:-}
TG=${TG:-128} PP=${PP:-512} REPS=${REPS:-3} PAR=${PAR:-1,8,32}
MODELS=${MODELS:-llama1b smollm2}
SKEL=${SKEL:-.device/bench/smollm2-135m-q4_1.skel.gguf}
B=.device/bench BIN=${BIN:-/tmp/peer-bin} RUN=${RUN:-/tmp/variants-batch}
mkdir -p "$BIN" "$RUN"
unxz() { python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" "$1" "$2"; }
[ -f "$B/libcudart.so.13.xz" ] && [ ! -f "$BIN/libcudart.so.13" ] && unxz "$B/libcudart.so.13.xz" "$BIN/libcudart.so.13"
build_pid=""
if [ ! -x "$BIN/llama-batched-bench" ]; then
  ( TARGETS="llama-bench llama-batched-bench" nice -n 19 timeout 540 \
      bash bench/peer/build_cuda_here.sh "$B/llama.cpp-src.tar.xz" "$BIN/llama-bench-cuda" 16 >"$RUN/build.log" 2>&1 ) &
  build_pid=$!
fi

declare -A MODEL_PATH=([llama1b]=/tmp/llama1b-q4_0.gguf [smollm2]=/tmp/smollm2-135m-q4_1.gguf)
declare -A MODEL_GEN=(
  [llama1b]="python3 bench/make_bench_gguf.py ${MODEL_PATH[llama1b]} --seed 0"
  [smollm2]="python3 bench/random_gguf.py fill $SKEL ${MODEL_PATH[smollm2]} --seed 0")
for m in $MODELS; do
  [ -s "${MODEL_PATH[$m]}" ] || timeout 240 ${MODEL_GEN[$m]} >"$RUN/gen-$m.log" 2>&1 || echo "making $m failed"
done
echo "models ready at t=${SECONDS}s"

for m in $MODELS; do
  echo "=== wgrt now $m (t=${SECONDS}s)"
  timeout -k 5 200 "$WGRT" bench --model "${MODEL_PATH[$m]}" -p "$PP" -n "$TG" -r "$REPS" --parallel "$PAR" \
      --max-seconds 20 --json "$RUN/wgrt-now-$m.json" >"$RUN/wgrt-now-$m.out" 2>&1
  echo "rc=$?"; grep -E "^(pp|tg)|at once" "$RUN/wgrt-now-$m.out"
  if [ -n "$WGRT_BASE" ]; then
    echo "=== wgrt base $m (t=${SECONDS}s)"
    timeout -k 5 120 "$WGRT_BASE" bench --model "${MODEL_PATH[$m]}" -p "$PP" -n "$TG" -r "$REPS" \
        --max-seconds 20 --json "$RUN/wgrt-base-$m.json" >"$RUN/wgrt-base-$m.out" 2>&1
    echo "rc=$?"; grep -E "^(pp|tg)" "$RUN/wgrt-base-$m.out"
  fi
done

if [ -n "$build_pid" ]; then
  echo "waiting for the peer build (t=${SECONDS}s)"
  wait "$build_pid"
  echo "peer build rc=$? at t=${SECONDS}s: $(tail -n 2 "$RUN/build.log" | tr '\n' ' ')"
fi
cublas=$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libcublas.so.13' -print 2>/dev/null | head -1)
max_p=$(echo "$PAR" | tr ',' '\n' | sort -n | tail -1)
if [ -x "$BIN/llama-batched-bench" ]; then
  for m in $MODELS; do
    echo "=== llama.cpp CUDA batched-bench $m (t=${SECONDS}s)"
    LD_LIBRARY_PATH="$BIN:$(dirname "${cublas:-/x/y}"):${LD_LIBRARY_PATH:-}" timeout 150 "$BIN/llama-batched-bench" \
        -m "${MODEL_PATH[$m]}" -c $((max_p * (TG + 8))) -b 2048 -ub 512 -ngl 99 -npp 1 -ntg "$TG" -npl "$PAR" \
        >"$RUN/peer-$m.out" 2>&1
    echo "rc=$?"; grep -E "^\|" "$RUN/peer-$m.out"
  done
fi

echo; echo "=== table (t=${SECONDS}s)"
python3 - "$RUN" "$MODELS" "$PAR" "$TG" "$PP" <<'PY'
import json, os, sys
run, models, par, tg, pp = sys.argv[1], sys.argv[2].split(), [int(p) for p in sys.argv[3].split(",")], sys.argv[4], sys.argv[5]
def tests(v, m):
    try:
        return {t["name"]: t["tok_s"]["median"] for t in json.load(open(os.path.join(run, f"wgrt-{v}-{m}.json")))["tests"]}
    except Exception:
        return {}
print(f"| model | test | now tok/s | base tok/s | now/base |")
print("| --- | --- | ---: | ---: | ---: |")
for m in models:
    now, base = tests("now", m), tests("base", m)
    for name in (f"pp{pp}", f"tg{tg}"):
        n, b = now.get(name), base.get(name)
        print(f"| {m} | {name} | {'%.1f' % n if n else 'failed'} | {'%.1f' % b if b else 'n/a'} | {'%.3f' % (n / b) if n and b else ''} |")
print()
print("| model | P | wgrt tok/s | llama.cpp CUDA S_TG t/s | wgrt/llama.cpp | wgrt xP/x1 |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for m in models:
    now = tests("now", m)
    w = {int(k.split("/x")[1]): v for k, v in now.items() if "/x" in k}
    peer = {}
    try:
        for line in open(os.path.join(run, f"peer-{m}.out")):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 10 and cells[2].isdigit():
                peer[int(cells[2])] = float(cells[7])
    except Exception:
        pass
    for p in par:
        x, pr = w.get(p), peer.get(p)
        ratio = "%.2f" % (x / pr) if x and pr else ""
        scale = "%.2f" % (x / w[1]) if x and w.get(1) else ""
        print(f"| {m} | {p} | {'%.1f' % x if x else 'failed'} | {'%.1f' % pr if pr else 'n/a'} | {ratio} | {scale} |")
PY
