#!/usr/bin/env bash
# Decode GEMV variants (issue 13) A/B on the H200, in one device call of under
# 3 minutes: for each variant, `wgrt bench -p 0 -n 128 --profile` on the
# Llama-3.2-1B-shaped Q4_0 model and SmolLM2-135M Q4_1, then a table of
# tok/s, decode-step GPU time and each GEMV's weight bandwidth (file bytes of
# the matrix / its profiled time).
#
# Run from a wgrt checkout's root with .device staged (bench/device/stage_bench.sh):
#   source bench/device/env.sh .device; export PYTHONPATH=$PWD/.device/py
#   WGRT=path/to/wgrt bash bench/variants_decode.sh
# Off the H200 (lavapipe, a smoke test): SMOKE=1 runs a 2-layer 512-wide llama
# only, 8 tokens. Env: TG (128), REPS (3), STEP_S (seconds per bench, 40),
# MODELS ("llama1b smollm2"; any other name is a bench/make_bench_gguf.py
# --shape, e.g. llama8b, written to /tmp/NAME.gguf).
#
# Variants (VARIANTS, default "planar planar-l16 blocks planar-nofuse"):
#   planar         the default: planar layout + gemv_planar.wgsl, lanes by rows and K
#   planar-lN      the same with N (8, 16, 32) lanes per row for every matrix
#   blocks         WGRT_GEMV=blocks: block layout + gemv.wgsl (the previous default)
#   planar-nofuse  the default GEMV with --no-fuse (no fusion passes)
#   q8             WGRT_GEMV_ACT=q8: x rounded to int8 per 32 elements, packed
#                  integer dot products (gemv_planar_q8.wgsl)
#   q8-lN          the same with N lanes per row for every matrix
#   planar-uN, q8-uN  N blocks per lane loaded together (WGRT_GEMV_UPL, 1-8; default 4)
#   checks-M       WGRT_SHADER_CHECKS=M (all, bounds, none): the checks wgpu adds to shaders
#   rb-N           WGRT_GEMV_ROW_BLOCKS=N: N blocks of rows per workgroup for every matrix
#                  that allows it (no paired-row epilogue, K <= 4096); default 4 for heads only
#   act-A          WGRT_GEMV_ACT=A (f32, q8, q8x2) for every matrix: x as f32, or
#                  rounded to int8 once or twice (default: q8x2 on >= 3072 rows)
#   k-N            the default kernels with N decode steps in flight (--in-flight N; default 4)
#   split-N        WGRT_SDPA_SPLIT=N: decode attention splits of about N positions
#                  (default 128)
#   probe-P        WGRT_GEMV_PROBE=P (no-x, no-math, no-weights): timing probes, wrong
#                  results; each removes one cost from the planar GEMVs
#   f32probe-P     the same with x in f32 everywhere (no-x and no-math act on
#                  gemv_planar.wgsl only)
# TG_PREFILL (default 0) starts each tg test after that many cached tokens.
set -uo pipefail
WGRT=${WGRT:-build/wgrt}
TG=${TG:-128}
REPS=${REPS:-3}
SKEL=${SKEL:-.device/bench/smollm2-135m-q4_1.skel.gguf}
RUN=${RUN:-/tmp/variants-decode}
mkdir -p "$RUN"
LLAMA=/tmp/llama1b-q4_0.gguf
SMOL=/tmp/smollm2-135m-q4_1.gguf
STEP_S=${STEP_S:-40}
MODELS=${MODELS:-llama1b smollm2}
LLAMA_ARGS=()
if [ -n "${SMOKE:-}" ]; then
  LLAMA=/tmp/variants-llama-smoke.gguf
  LLAMA_ARGS=(--layers 2 --hidden 512 --heads 8 --kv-heads 2 --ffn 1024 --vocab 8192 --context 2048)
  TG=8; REPS=1; STEP_S=600; MODELS=llama1b
fi
t0=$SECONDS
# Models: reused when an earlier run (bench/run_all.sh) left them in /tmp.
[[ " $MODELS " != *" llama1b "* ]] || [ -s "$LLAMA" ] || python3 bench/make_bench_gguf.py "$LLAMA" --seed 0 "${LLAMA_ARGS[@]}" >"$RUN/gen-llama.log" 2>&1 &
[[ " $MODELS " != *" smollm2 "* ]] || [ -s "$SMOL" ] || python3 bench/random_gguf.py fill "$SKEL" "$SMOL" --seed 0 >"$RUN/gen-smol.log" 2>&1 &
for m in $MODELS; do
  case $m in llama1b|smollm2) ;; *) [ -s "/tmp/$m.gguf" ] || python3 bench/make_bench_gguf.py "/tmp/$m.gguf" --seed 0 --shape "$m" >"$RUN/gen-$m.log" 2>&1 & ;; esac
done
wait
echo "models ready after $((SECONDS - t0)) s"; ls -la "$LLAMA" "$SMOL" 2>&1

VARIANTS=${VARIANTS:-planar planar-l16 blocks planar-nofuse}
for v in $VARIANTS; do
  flags=()
  case $v in
    blocks) envs=(WGRT_GEMV=blocks) ;;
    planar) envs=(WGRT_GEMV=planar) ;;
    planar-l*) envs=(WGRT_GEMV=planar WGRT_GEMV_LANES=${v#planar-l}) ;;
    planar-nofuse) envs=(WGRT_GEMV=planar); flags=(--no-fuse) ;;
    k-*) envs=(WGRT_GEMV=planar); flags=(--in-flight "${v#k-}") ;;
    q8) envs=(WGRT_GEMV=planar WGRT_GEMV_ACT=q8) ;;
    q8-l*) envs=(WGRT_GEMV=planar WGRT_GEMV_ACT=q8 WGRT_GEMV_LANES=${v#q8-l}) ;;
    act-*) envs=(WGRT_GEMV=planar WGRT_GEMV_ACT=${v#act-}) ;;
    probe-*) envs=(WGRT_GEMV=planar WGRT_GEMV_PROBE=${v#probe-}) ;;
    f32probe-*) envs=(WGRT_GEMV=planar WGRT_GEMV_ACT=f32 WGRT_GEMV_PROBE=${v#f32probe-}) ;;
    rb-*) envs=(WGRT_GEMV=planar WGRT_GEMV_ROW_BLOCKS=${v#rb-}) ;;
    checks-*) envs=(WGRT_GEMV=planar WGRT_SHADER_CHECKS=${v#checks-}) ;;
    planar-u*) envs=(WGRT_GEMV=planar WGRT_GEMV_UPL=${v#planar-u}) ;;
    split-*) envs=(WGRT_GEMV=planar WGRT_SDPA_SPLIT=${v#split-}) ;;
    q8-u*) envs=(WGRT_GEMV=planar WGRT_GEMV_ACT=q8 WGRT_GEMV_UPL=${v#q8-u}) ;;
    *) echo "unknown variant $v"; continue ;;
  esac
  for m in $MODELS; do
    case $m in llama1b) model=$LLAMA ;; smollm2) model=$SMOL ;; *) model=/tmp/$m.gguf ;; esac
    echo "=== $v $m (t=${SECONDS}s)"
    env "${envs[@]}" timeout -k 5 "$STEP_S" "$WGRT" bench --model "$model" -p 0 -n "$TG" -r "$REPS" --max-seconds 8 \
        --profile --top 12 --tg-prefill "${TG_PREFILL:-0}" ${flags[@]+"${flags[@]}"} --json "$RUN/$v-$m.json" >"$RUN/$v-$m.out" 2>&1
    echo "rc=$?"; tail -n 16 "$RUN/$v-$m.out"
  done
done

echo; echo "=== table (t=${SECONDS}s)"
python3 - "$RUN" "$MODELS" $VARIANTS <<'PY'
import json, os, re, sys
run, models, variants = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
# File bytes per 32 elements (what any runtime reads per token).
BYTES32 = {"F32": 128, "F16": 64, "Q4_0": 18, "Q4_1": 20, "Q5_0": 22, "Q5_1": 24, "Q8_0": 34,
           "Q2_K": 84 / 8, "Q3_K": 110 / 8, "Q4_K": 144 / 8, "Q5_K": 176 / 8, "Q6_K": 210 / 8,
           "IQ4_NL": 18, "IQ4_XS": 136 / 8}
steps, gemvs = [], []
for v in variants:
    for m in models:
        path = os.path.join(run, f"{v}-{m}.json")
        try:
            doc = json.load(open(path))
        except Exception as e:
            steps.append((m, v, "failed: %s" % e, "", "", ""))
            continue
        tg = [t for t in doc["tests"] if t["n_gen"] > 0]
        tps = tg[0]["tok_s"]["median"] if tg else float("nan")
        host = tg[0].get("host_ms_per_pass", {}) if tg else {}
        prof = next((p for p in doc.get("profiles", []) if p["what"].startswith("decode")), None)
        total_b, total_us = 0.0, 0.0
        if prof:
            for k in prof["kernels"]:
                mm = re.match(r"linear_ggml gemv (\S+) (\d+)x(\d+)(.*)", k["label"])
                if not mm:
                    continue
                fmt, n, kk, rest = mm.group(1), int(mm.group(2)), int(mm.group(3)), mm.group(4).strip()
                b = n * kk / 32 * BYTES32.get(fmt, float("nan"))
                avg = k["gpu_us"] / k["count"]
                total_b += b * k["count"]; total_us += k["gpu_us"]
                gemvs.append((m, f"{fmt} {n}x{kk} {rest.replace('[planar layout]', '').strip()}", v, k["count"], avg,
                              b / (avg * 1e-6) / 1e12))
        steps.append((m, v, "%.1f" % tps, "%.3f" % prof["gpu_ms"] if prof else "", str(prof["dispatches"]) if prof else "",
                      "%.3g" % (total_b / (total_us * 1e-6) / 1e12) if total_us else "",
                      "%.3f / %.3f (%.3f)" % (host.get("prepare", float("nan")), host.get("encode", float("nan")),
                                               host.get("submit", float("nan")))))
print("\nGEMVs (decode step at position 16; TB/s = file bytes of the matrix / profiled time):")
print("| model | matrix | variant | count | avg us | TB/s |")
print("| --- | --- | --- | ---: | ---: | ---: |")
for g in sorted(gemvs, key=lambda g: (g[0], g[1], variants.index(g[2]))):
    print("| %s | %s | %s | %d | %.1f | %.3g |" % g)
print("\n| model | variant | tg tok/s | decode GPU ms | dispatches | all GEMVs TB/s | host prepare / encode (of it submit) ms per token |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for s in sorted(steps, key=lambda s: (s[0], variants.index(s[1]))):
    print("| %s | %s | %s | %s | %s | %s | %s |" % (s + ("",) * (7 - len(s))))
PY
