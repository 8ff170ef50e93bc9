#!/usr/bin/env bash
# The whole benchmark, on the H200 machine, in one call of the device tool:
#   bench/device/stage_bench.sh            (here, first; see bench/README.md)
#   device run: bash bench/run_all.sh      (carry [".device"], timeout_s 600)
# Makes the two models in /tmp (random weights: Llama-3.2-1B-shaped Q4_0, and
# SmolLM2-135M Q4_1 filled from its skeleton), then runs `wgrt bench` and
# llama.cpp's llama-bench (CUDA and Vulkan builds) on both with the same tests,
# and prints a table. Each step has a timeout, logs, and a failure does not
# stop the rest. Results: $OUT/run_all.log, $OUT/summary.md, $OUT/results.tgz
# (every JSON and log), $OUT/results-YYYY-MM-DD.json (the table as JSON:
# commit it as bench/results/YYYY-MM-DD.json), or /tmp/bench-run when OUT is
# unset.
#
# Env: PP (default 128,512), TG (128), REPS (5), BUDGET_S (total seconds, 540),
#      MODELS (default "llama1b smollm2"), BENCH_LOCAL=1 (off the H200: keep
#      the local Vulkan driver; for testing this script).
set -uo pipefail
cd "$(dirname "$0")/.."
D=${DEVICE_DIR:-.device}
PP=${PP:-128,512}
TG=${TG:-128}
REPS=${REPS:-5}
BUDGET_S=${BUDGET_S:-540}
MODELS=${MODELS:-llama1b smollm2}
RUN=/tmp/bench-run
rm -rf "$RUN" && mkdir -p "$RUN"
RESULT_DIR=${OUT:-$RUN}
mkdir -p "$RESULT_DIR"
exec > >(tee "$RESULT_DIR/run_all.log") 2>&1

if [ -n "${BENCH_LOCAL:-}" ]; then   # a test run off the H200: the local Vulkan driver
  export LD_LIBRARY_PATH="$PWD/$D:${LD_LIBRARY_PATH:-}"
else
  source bench/device/env.sh "$D"
fi
# llama.cpp's Vulkan backend: the first device (the only one the EGL ICD lists
# there; locally it also makes llama.cpp accept lavapipe, a CPU device)
export GGML_VK_VISIBLE_DEVICES=${GGML_VK_VISIBLE_DEVICES:-0}
export PYTHONPATH="$PWD/$D/py${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
B=$D/bench

# step NAME TIMEOUT_S CMD...: runs CMD with stdout in $RUN/NAME.out and stderr
# in $RUN/NAME.err (both echoed), under min(TIMEOUT_S, the budget left - 20 s).
step() {
  local name=$1 limit=$2; shift 2
  local left=$((BUDGET_S - SECONDS - 20))
  if [ "$left" -lt 10 ]; then echo "=== $name: skipped, budget spent"; return 99; fi
  [ "$limit" -gt "$left" ] && limit=$left
  echo "=== $name (limit ${limit}s, t=${SECONDS}s): $*"
  local t0=$SECONDS
  timeout -k 5 "$limit" "$@" >"$RUN/$name.out" 2>"$RUN/$name.err"
  local rc=$?
  tail -n 40 "$RUN/$name.err"
  cat "$RUN/$name.out"
  echo "=== $name: rc=$rc, $((SECONDS - t0)) s"
  return $rc
}

# Binaries and libraries from $B into $BIN, unpacking those staged
# xz-compressed (python's lzma: no xz needed there); $B stays as carried.
BIN=/tmp/bench-bin
rm -rf "$BIN" && mkdir -p "$BIN"
for f in "$B"/*; do
  case $f in
    *.tar.xz|*.gguf) ;;
    *.xz) python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
            "$f" "$BIN/$(basename "${f%.xz}")" ;;
    *) cp "$f" "$BIN/" ;;
  esac
done
chmod +x "$BIN"/* 2>/dev/null

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1 | head -3
nproc; date -u
step wgrt-info 30 "$D/wgrt" info

# CUDA's libraries for llama-bench-cuda: libcudart is carried; cuBLAS (too big
# to carry) comes from this machine's CUDA toolkit or its pip wheels.
cublas=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-13*/lib64; do
  [ -e "$d/libcublas.so.13" ] && { cublas=$d; break; }
done
if [ -z "$cublas" ]; then
  f=$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name 'libcublas.so.13' -print 2>/dev/null | head -1)
  [ -n "$f" ] && cublas=$(dirname "$f")
fi
echo "== cuBLAS for llama-bench-cuda: ${cublas:-not found}"
export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$BIN"   # libgomp for llama-bench, if missing there
CUDA_LD="$BIN${cublas:+:$cublas}:${LD_LIBRARY_PATH:-}"

# No carried llama-bench-cuda but its source: build it there, in the background
# at nice 19 on all but 2 cores, while models are made and the other runs go
# (PEER_BUILD=first waits for it before anything is timed; off skips it).
PEER_BUILD=${PEER_BUILD:-background}
peer_pid=""
if [ ! -x "$BIN/llama-bench-cuda" ] && [ -f "$B/llama.cpp-src.tar.xz" ] && [ "$PEER_BUILD" != off ]; then
  jobs=$(( $(nproc) > 4 ? $(nproc) - 2 : 2 ))
  ( step build-llamacpp-cuda 420 nice -n 19 bash bench/peer/build_cuda_here.sh "$B/llama.cpp-src.tar.xz" \
      "$BIN/llama-bench-cuda" "$jobs" ) &
  peer_pid=$!
  [ "$PEER_BUILD" = first ] && wait $peer_pid
fi

echo "== models"
declare -A MODEL_PATH=([llama1b]=/tmp/llama1b-q4_0.gguf [smollm2]=/tmp/smollm2-135m-q4_1.gguf)
declare -A MODEL_GEN=(
  [llama1b]="python3 bench/make_bench_gguf.py ${MODEL_PATH[llama1b]} --seed 0"
  [smollm2]="python3 bench/random_gguf.py fill $B/smollm2-135m-q4_1.skel.gguf ${MODEL_PATH[smollm2]} --seed 0")
pids=()
for m in $MODELS; do
  ( step "gen-$m" 150 ${MODEL_GEN[$m]} ) &
  pids+=($!)
done
wait "${pids[@]}"
ls -la /tmp/*.gguf 2>&1 | grep -E "llama1b-q4_0|smollm2-135m"

for m in $MODELS; do
  model=${MODEL_PATH[$m]}
  [ -f "$model" ] || { echo "=== $m: no model file, skipped"; continue; }
  step "wgrt-$m" 150 "$D/wgrt" bench --model "$model" -p "$PP" -n "$TG" -r "$REPS" --max-seconds 30 \
       --profile --json "$RUN/wgrt-$m.json"
  # A/B (issue 13): the graph without the fusion passes, with its profile
  # (dispatches per decode step).
  step "wgrt-$m-nofuse" 90 "$D/wgrt" bench --model "$model" -p "$PP" -n "$TG" -r "$REPS" --max-seconds 20 \
       --no-fuse --profile --json "$RUN/wgrt-$m-nofuse.json"
  # A/B: a submit every 64 dispatches (an LLM's default is one per token).
  WGRT_SUBMIT_EVERY=64 step "wgrt-$m-submit-every-64" 60 "$D/wgrt" bench --model "$model" -p 0 -n "$TG" -r 3 --max-seconds 15
  # A/B (issue 14): tg with 4 steps in flight vs one host wait per token, and
  # the loop that reads logits back and samples on the CPU; then `generate`
  # (greedy, GPU sampling) for its tokens/s beside tg.
  step "wgrt-$m-in-flight-ab" 60 "$D/wgrt" bench --model "$model" -p 0 -n "$TG" -r 3 --max-seconds 15 --ab
  step "wgrt-$m-in-flight-4" 45 "$D/wgrt" bench --model "$model" -p 0 -n "$TG" -r 5 --max-seconds 15 --in-flight 4
  step "wgrt-$m-cpu-sampling" 60 "$D/wgrt" bench --model "$model" -p 0 -n "$TG" -r 3 --max-seconds 15 --cpu-sampling
  step "wgrt-$m-generate" 60 "$D/wgrt" generate --model "$model" "The capital of France is" -n "$TG" --temp 0 \
       --ignore-eos
  # Issue 18 A/B: pp512 with each GEMM precision of the GEMM family (the
  # default is f16 where the device offers shader-f16), with linear.wgsl's old
  # tiles (WGRT_GEMM_FAMILY=0), without flash attention and with its rows
  # kernel; tg128 at position
  # 2048 with the f32 and the f16 KV cache.
  for prec in f32 f16 f16acc; do
    WGRT_MATMUL=$prec step "wgrt-$m-pp-$prec" 45 "$D/wgrt" bench --model "$model" -p 512 -n 0 -r 3 \
        --max-seconds 10 --profile --top 6
  done
  WGRT_GEMM_FAMILY=0 step "wgrt-$m-pp-old-tiles" 45 "$D/wgrt" bench --model "$model" -p 512 -n 0 -r 3 \
      --max-seconds 10 --profile --top 6
  WGRT_FLASH_ATTENTION=0 step "wgrt-$m-pp-no-flash" 45 "$D/wgrt" bench --model "$model" -p 512 -n 0 -r 3 \
      --max-seconds 10
  # A/B: the rows flash kernel instead of the tiled one.
  WGRT_FLASH_KERNEL=rows step "wgrt-$m-pp-flash-rows" 45 "$D/wgrt" bench --model "$model" -p 512 -n 0 -r 3 \
      --max-seconds 10
  # A/B: shaders with wgpu's runtime checks (loop counters, index clamps), off by default.
  WGRT_SHADER_CHECKS=all step "wgrt-$m-checks-all" 60 "$D/wgrt" bench --model "$model" -p 512 -n "$TG" -r 3 \
      --max-seconds 15
  # A/B: decode GEMVs with f32 x everywhere (the default rounds x to int8
  # twice on matrices of >= 8,192 rows).
  WGRT_GEMV_ACT=f32 step "wgrt-$m-gemv-f32" 45 "$D/wgrt" bench --model "$model" -p 0 -n "$TG" -r 3 --max-seconds 10
  for kv in "" --kv-f16; do
    step "wgrt-$m-tg-at-2048${kv}" 60 "$D/wgrt" bench --model "$model" -p 0 -n "$TG" --tg-prefill 2048 -r 3 \
        --max-seconds 15 $kv
  done
  if [ -x "$BIN/llama-bench-cuda" ] && [ -z "$peer_pid" ]; then
    LD_LIBRARY_PATH="$CUDA_LD" step "llamacpp-cuda-$m" 120 "$BIN/llama-bench-cuda" -m "$model" -p "$PP" -n "$TG" \
        -r "$REPS" -ngl 99 -o json
  fi
  if [ -x "$BIN/llama-bench-vulkan" ]; then
    step "llamacpp-vulkan-$m" 150 "$BIN/llama-bench-vulkan" -m "$model" -p "$PP" -n "$TG" \
        -r "$REPS" -ngl 99 -o json
  fi
done

# Vision programs (bench/export_vision_models.py, made where torch is; carried
# in $VISION_DIR as NAME.pte.xz, or NAME.pte): median latency of 50 runs with
# the per-dispatch GPU profile, then of 200 runs without it. Carry only the .xz files (e.g. both 224x224
# programs: mobilenet_v2_224.pte.xz and resnet18_224.pte.xz).
VISION_DIR=${VISION_DIR:-bench/models}
VISION_RUN=/tmp/bench-vision
rm -rf "$VISION_RUN" && mkdir -p "$VISION_RUN"
for f in "$VISION_DIR"/*.pte.xz; do
  [ -f "$f" ] || continue
  python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
    "$f" "$VISION_RUN/$(basename "${f%.xz}")"
done
for f in "$VISION_DIR"/*.pte; do
  [ -f "$f" ] && [ ! -f "$VISION_RUN/$(basename "$f")" ] && cp "$f" "$VISION_RUN/"
done
for f in "$VISION_RUN"/*.pte; do
  [ -f "$f" ] || continue
  step "wgrt-vision-$(basename "${f%.pte}")" 60 "$D/wgrt" run "$f" --repeat 50 --profile
  # The latency without profiling (which opens a compute pass per dispatch).
  step "wgrt-vision-$(basename "${f%.pte}")-unprofiled" 60 "$D/wgrt" run "$f" --repeat 200
done

if [ -n "$peer_pid" ]; then   # llama-bench-cuda built here: run it now
  echo "== waiting for the llama-bench-cuda build (t=${SECONDS}s)"
  wait $peer_pid
  cp /tmp/llama-cuda-build/*.log "$RUN/" 2>/dev/null
  [ -x "$BIN/llama-bench-cuda" ] || { echo "no llama-bench-cuda; its build log ends:"; tail -n 5 /tmp/llama-cuda-build/build.log 2>/dev/null; }
  # Keep the binary (xz) so a later run can carry it instead of building.
  if [ -x "$BIN/llama-bench-cuda" ] && [ "$RESULT_DIR" != "$RUN" ]; then
    python3 -c "import lzma, shutil, sys; shutil.copyfileobj(open(sys.argv[1], 'rb'), lzma.open(sys.argv[2], 'wb', preset=6))" \
      "$BIN/llama-bench-cuda" "$RESULT_DIR/llama-bench-cuda.xz" && ls -la "$RESULT_DIR/llama-bench-cuda.xz"
  fi
  for m in $MODELS; do
    model=${MODEL_PATH[$m]}
    [ -f "$model" ] && [ -x "$BIN/llama-bench-cuda" ] || continue
    LD_LIBRARY_PATH="$CUDA_LD" step "llamacpp-cuda-$m" 120 "$BIN/llama-bench-cuda" -m "$model" -p "$PP" -n "$TG" \
        -r "$REPS" -ngl 99 -o json
  done
fi

echo "== summary (t=${SECONDS}s)"
python3 bench/summarize.py "$RUN" --json "$RESULT_DIR/results-$(date -u +%F).json" \
  --commit "$(cat "$D/COMMIT" 2>/dev/null || echo unknown)" | tee "$RESULT_DIR/summary.md"
echo "== prefill, GEMV, KV and in-flight variants (issues 13, 14, 18)" | tee -a "$RESULT_DIR/summary.md"
for f in "$RUN"/wgrt-*-pp-*.out "$RUN"/wgrt-*-gemv-*.out "$RUN"/wgrt-*-tg-at-2048*.out "$RUN"/wgrt-*-in-flight-4.out; do
  [ -f "$f" ] || continue
  echo "$(basename "${f%.out}"): $(grep -hE "^(pp|tg)[0-9]+ " "$f" | awk '{print $1, $3, "tok/s"}' | tr '\n' ' ')" \
       "$(grep -ho "KV cache [0-9.]* MiB ([a-z0-9]*)" "$f")"
  # The pp512 profile's GEMM rows (label, count, total us): TFLOP/s = 2 * 512 *
  # (weights of the matrices that label ran) / total time.
  sed -n '/^profile: pp512/,$p' "$f" | grep -E "^  (gemm|linear_ggml gemm) " | sed 's/^/    /'
done | tee -a "$RESULT_DIR/summary.md"
if [ "$RESULT_DIR" != "$RUN" ]; then tar czf "$RESULT_DIR/results.tgz" -C /tmp bench-run; fi
echo "== done in ${SECONDS}s"
