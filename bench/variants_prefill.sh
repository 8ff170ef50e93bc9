#!/usr/bin/env bash
# Issue 18 A/B on the H200 in one call (under 3 minutes): pp512 of llama1b
# Q4_0 and SmolLM2 Q4_1 (random weights, made in /tmp as bench/run_all.sh
# makes them) with the old tiles of linear/linear.wgsl (the default) and with
# each tile of the GEMM family (linear/gemm.wgsl, WGRT_GEMM_TILE) in f32 and
# f16 (WGRT_MATMUL), the fused graph, the family at every size
# (WGRT_GEMM_MIN_WORKGROUPS=0); then the first tile and precision with the
# default 128-workgroup threshold (smaller matrices on the old tiles), and
# old tiles vs the family on the unfused graph (--no-fuse). GEMM TFLOP/s = 2 * 512 * (weights
# of the per-layer matrices, read from the GGUF) / the pp512 profile's GEMM time
# (rows "gemm" and "linear_ggml gemm ..."; the head runs on one row: a GEMV).
#
# On the device, after `source bench/device/env.sh .device` and
# PYTHONPATH=$PWD/.device/py:  WGRT=path/to/wgrt bash bench/variants_prefill.sh
# Here (lavapipe): BENCH_LOCAL=1 PP=32 MODELS=smollm2 SKEL=... bash bench/variants_prefill.sh
# Env: WGRT (default build/wgrt), PP (512), REPS (2), BUDGET_S (172),
#      MODELS ("llama1b smollm2"), TILES, PRECS, SKEL (SmolLM2 skeleton),
#      RUN_LIMIT_S (seconds per run, 30), SET (tiles: the rows above;
#      default: the default path, WGRT_GEMM_FAMILY=0, WGRT_MATMUL=f32, f16acc;
#      depth: K depths WGRT_GEMM_KU=1/2/4 on the tiles that have the threads;
#      shape: 8 x 4 thread tiles at each depth, 32x64, against the default;
#      flash: the attention kernels, the large GEMM tile off;
#      span: products per f16 partial sum, WGRT_GEMM_F16_SPAN=32/64, f16acc;
#      matrix: each GEMM's time per tile choice (large tile everywhere, nowhere,
#      32x64 everywhere), printed per matrix after the table).
set -uo pipefail
# Run from the repository root (on the device this script may be a copy elsewhere).
[ -f bench/make_bench_gguf.py ] || { echo "run from the repository root" >&2; exit 2; }
WGRT=${WGRT:-build/wgrt}
PP=${PP:-512}
REPS=${REPS:-2}
BUDGET_S=${BUDGET_S:-172}
MODELS=${MODELS:-llama1b smollm2}
TILES=${TILES:-64x64_4x4 64x128_4x8 128x128_8x8 64x128_8x8}
PRECS=${PRECS:-f32 f16}
SKEL=${SKEL:-.device/bench/smollm2-135m-q4_1.skel.gguf}
SET=${SET:-tiles}
RUN=/tmp/variants-prefill
rm -rf "$RUN" && mkdir -p "$RUN"
export PYTHONUNBUFFERED=1
if [ -n "${BENCH_LOCAL:-}" ]; then unset WGRT_REQUIRE_GPU; fi

declare -A MODEL_PATH=([llama1b]=/tmp/llama1b-q4_0.gguf [smollm2]=/tmp/smollm2-135m-q4_1.gguf)
declare -A MODEL_GEN=(
  [llama1b]="python3 bench/make_bench_gguf.py ${MODEL_PATH[llama1b]} --seed 0"
  [smollm2]="python3 bench/random_gguf.py fill $SKEL ${MODEL_PATH[smollm2]} --seed 0")
pids=()
for m in $MODELS; do
  [ -s "${MODEL_PATH[$m]}" ] && continue
  ( timeout 100 ${MODEL_GEN[$m]} >"$RUN/gen-$m.log" 2>&1 || echo "gen $m failed: $(tail -3 "$RUN/gen-$m.log")" ) &
  pids+=($!)
done
[ ${#pids[@]} -gt 0 ] && wait "${pids[@]}"
echo "models made at t=${SECONDS}s"

# 2 * PP * sum(n * k) over the blk.* matrices of a GGUF, in GFLOP.
gflop() {
  python3 - "$1" "$PP" <<'EOF'
import sys, gguf
r = gguf.GGUFReader(sys.argv[1])
s = sum(int(t.shape[0]) * int(t.shape[1]) for t in r.tensors
        if t.name.startswith("blk.") and t.name.endswith(".weight") and len(t.shape) == 2)
print(f"{2 * int(sys.argv[2]) * s / 1e9:.2f}")
EOF
}

# run NAME MODEL [env assignments...] -- [bench flags...]: one pp run; appends a table row.
ROWS=()
run() {
  local name=$1 m=$2; shift 2
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local left=$((BUDGET_S - SECONDS - 5))
  if [ "$left" -lt 8 ]; then ROWS+=("| $m | $name | skipped (budget) | | |"); return; fi
  local cap=${RUN_LIMIT_S:-30}
  local limit=$(( left < cap ? left : cap ))
  local log="$RUN/$m-$name.log"
  env "${envs[@]}" timeout -k 3 "$limit" "$WGRT" bench --model "${MODEL_PATH[$m]}" -p "$PP" -n 0 -r "$REPS" \
      --max-seconds 4 --profile --top 60 "$@" >"$log" 2>&1
  local rc=$?
  local tps gemm_us tf
  tps=$(awk -v t="pp$PP" '$1 == t && $3 ~ /^[0-9.]+$/ {print $3; exit}' "$log")
  gemm_us=$(sed -n "/^profile: pp$PP/,\$p" "$log" | awk '
      /^  (gemm|linear_ggml gemm)/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/ && $(i+1) ~ /^[0-9.]+$/) { s += $(i+1); break } }
      END { if (s > 0) printf "%.0f", s }')
  tf=""
  if [ -n "$gemm_us" ] && [ -n "${GF[$m]:-}" ]; then
    tf=$(awk -v g="${GF[$m]}" -v us="$gemm_us" 'BEGIN { printf "%.2f", g / (us * 1e-6) / 1e3 }')
  fi
  echo "=== $m $name: rc=$rc t=${SECONDS}s pp$PP=${tps:-?} tok/s, GEMM ${gemm_us:-?} us"
  [ $rc -ne 0 ] && tail -5 "$log"
  ROWS+=("| $m | $name | ${tps:-failed rc=$rc} | ${gemm_us:+$(awk -v u="$gemm_us" 'BEGIN{printf "%.2f", u/1e3}')} | $tf |")
}

declare -A GF
for m in $MODELS; do
  [ -s "${MODEL_PATH[$m]}" ] || { ROWS+=("| $m | (no model file) | | | |"); continue; }
  GF[$m]=$(gflop "${MODEL_PATH[$m]}")
  echo "== $m: ${GF[$m]} GFLOP in the per-layer matrices at pp$PP"
  if [ "$SET" = default ]; then
    # The default path after the first H200 round (family, f16 where offered,
    # tile by matrix size) against the old tiles and the other precisions.
    run default "$m" --
    run old-tiles "$m" WGRT_GEMM_FAMILY=0 --
    run default-f32 "$m" WGRT_MATMUL=f32 --
    run default-f16acc "$m" WGRT_MATMUL=f16acc --
    continue
  fi
  if [ "$SET" = depth ]; then
    # Units of K staged per barrier pair (gemm.wgsl's KU), on the default
    # precision, then the tiles with enough threads for deeper tiles.
    run default "$m" --
    for ku in 2 4; do run "64x64_4x4-k$ku" "$m" WGRT_GEMM_KU=$ku --; done
    for ku in 1 2; do run "32x64_4x4-k$ku" "$m" WGRT_GEMM_TILE=32x64_4x4 WGRT_GEMM_KU=$ku --; done
    run 128x128_8x8-k2 "$m" WGRT_GEMM_TILE=128x128_8x8 WGRT_GEMM_KU=2 --
    run 64x128_4x8-k2 "$m" WGRT_GEMM_TILE=64x128_4x8 WGRT_GEMM_KU=2 --
    run f16acc-k4 "$m" WGRT_MATMUL=f16acc WGRT_GEMM_KU=4 --
    run f32-k2 "$m" WGRT_MATMUL=f32 WGRT_GEMM_KU=2 --
    run f32-k1 "$m" WGRT_MATMUL=f32 --
    continue
  fi
  if [ "$SET" = flash ]; then
    # The prefill attention kernels (WGRT_FLASH_KERNEL), and the large GEMM
    # tile off, against the default.
    run default "$m" --
    run flash-rows "$m" WGRT_FLASH_KERNEL=rows --
    run no-large-tile "$m" WGRT_GEMM_LARGE_MIN_WORKGROUPS=0 --
    run three-pass "$m" WGRT_FLASH_ATTENTION=0 --
    continue
  fi
  if [ "$SET" = span ]; then
    # Products per f16 partial sum before it is added into f32
    # (WGRT_GEMM_F16_SPAN; the default 128 is one fold per K tile, longer
    # spans are capped to it; f16acc: all of K), against the default.
    run default "$m" --
    for span in 32 64; do run "f16-span$span" "$m" WGRT_GEMM_F16_SPAN=$span --; done
    run f16acc "$m" WGRT_MATMUL=f16acc --
    continue
  fi
  if [ "$SET" = matrix ]; then
    # Which tile each matrix is fastest on: the per-dispatch profile rows.
    run default "$m" --
    run large-everywhere "$m" WGRT_GEMM_LARGE_MIN_WORKGROUPS=1 --
    run large-off "$m" WGRT_GEMM_LARGE_MIN_WORKGROUPS=0 --
    run 32x64-everywhere "$m" WGRT_GEMM_TILE=32x64_4x4 WGRT_GEMM_LARGE_MIN_WORKGROUPS=0 --
    continue
  fi
  if [ "$SET" = shape ]; then
    # Thread tiles of 8 x 4 (more multiplies per workgroup-memory read) at
    # each depth their threads allow, against the default.
    run default "$m" --
    for ku in 1 2; do run "64x64_8x4-k$ku" "$m" WGRT_GEMM_TILE=64x64_8x4 WGRT_GEMM_KU=$ku --; done
    for ku in 1 2 4; do run "128x64_8x4-k$ku" "$m" WGRT_GEMM_TILE=128x64_8x4 WGRT_GEMM_KU=$ku --; done
    run 32x64_4x4-k2 "$m" WGRT_GEMM_TILE=32x64_4x4 --
    run f32 "$m" WGRT_MATMUL=f32 --
    continue
  fi
  run old-tiles "$m" WGRT_GEMM_FAMILY=0 --
  for tile in $TILES; do
    for prec in $PRECS; do
      run "$tile-$prec" "$m" WGRT_MATMUL="$prec" WGRT_GEMM_TILE="$tile" WGRT_GEMM_MIN_WORKGROUPS=0 --
    done
  done
  first_tile=${TILES%% *} first_prec=${PRECS%% *}
  run "$first_tile-$first_prec-min128" "$m" WGRT_MATMUL="$first_prec" WGRT_GEMM_TILE="$first_tile" \
      WGRT_GEMM_MIN_WORKGROUPS=128 --
  run old-tiles-nofuse "$m" WGRT_GEMM_FAMILY=0 -- --no-fuse
  run "$first_tile-$first_prec-nofuse" "$m" WGRT_MATMUL="$first_prec" WGRT_GEMM_TILE="$first_tile" \
      WGRT_GEMM_MIN_WORKGROUPS=0 -- --no-fuse
done

"$WGRT" info 2>/dev/null | grep -iE "device|f16" | head -3
echo
echo "variants_prefill (pp$PP, median of $REPS; GEMM = the pp profile's GEMM rows; total ${SECONDS}s)"
echo "| model | variant | pp$PP tok/s | GEMM ms | GEMM TFLOP/s |"
echo "| --- | --- | ---: | ---: | ---: |"
printf '%s\n' "${ROWS[@]}"
if [ "$SET" = matrix ]; then
  echo; echo "per matrix (avg us per dispatch, from each run's pp$PP profile):"
  for log in "$RUN"/*-*.log; do
    name=$(basename "$log" .log)
    sed -n "/^profile: pp$PP/,\$p" "$log" | awk -v n="$name" '/^  (gemm|linear_ggml gemm)/ {
        for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/ && $(i+1) ~ /^[0-9.]+$/) { c = $i; avg = $(i+2); break }
        label = substr($0, 3, 40); printf "| %s | %s | %s | %s |\n", n, label, c, avg }'
  done
fi
