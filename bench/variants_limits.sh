#!/usr/bin/env bash
# Issue 30 on the H200 in one call: did splitting tensors at the binding limit
# move decode or prefill? For each model, `wgrt bench -p 512 -n 128` with
#   base     an earlier wgrt (WGRT_BASE, built before the split), adapter limits
#   now      this wgrt, --limits adapter (the default)
#   default  this wgrt, --limits default (WebGPU's default limits, no optional feature)
# the three interleaved per model, ROUNDS times over (the variants alternate,
# so drift in clocks falls on all), then a table of tok/s (median of the
# rounds' medians), load time and GPU memory, with base/now and default/now
# ratios. VARIANTS picks some (e.g. "base now": issue 32's old-vs-new A/B).
#
# Models (MODELS, default "llama1b smollm2 llama8b"): the Llama-3.2-1B-shaped
# Q4_0 file (tied head), SmolLM2-135M Q4_1 (random weights in its skeleton) and
# a Llama-3.1-8B-shaped Q4_0 with a Q6_K head (32 layers), all made in /tmp.
# llama1b_long is the 1B file at --ctx 131072 with 2,048 tokens cached before
# tg: each KV cache is 256 MiB, so under the default limits it comes in two
# parts by heads (one binding with the adapter's); list it after llama1b, whose file it uses.
#
# On the device, after `source bench/device/env.sh .device` and PYTHONPATH=$PWD/.device/py:
#   WGRT=.device/wgrt WGRT_BASE=.device/wgrt-base bash bench/variants_limits.sh
# Env: PP (512), TG (128), REPS (3), ROUNDS (1), VARIANTS, STEP_S (seconds per
# bench, 90), SKEL.
set -uo pipefail
[ -f bench/make_bench_gguf.py ] || { echo "run from the repository root" >&2; exit 2; }
WGRT=${WGRT:-build/wgrt}
WGRT_BASE=${WGRT_BASE:-}
PP=${PP:-512}
TG=${TG:-128}
REPS=${REPS:-3}
ROUNDS=${ROUNDS:-1}
STEP_S=${STEP_S:-90}
MODELS=${MODELS:-llama1b smollm2 llama8b}
SKEL=${SKEL:-.device/bench/smollm2-135m-q4_1.skel.gguf}
RUN=${RUN:-/tmp/variants-limits}
mkdir -p "$RUN"

declare -A MODEL_PATH=([llama1b]=/tmp/llama1b-q4_0.gguf [smollm2]=/tmp/smollm2-135m-q4_1.gguf
                       [llama8b]=/tmp/llama8b-q4_0.gguf [llama1b_long]=/tmp/llama1b-q4_0.gguf)
declare -A MODEL_ARGS=([llama1b_long]="--ctx 131072 --tg-prefill 2048")
declare -A MODEL_GEN=(
  [llama1b]="python3 bench/make_bench_gguf.py ${MODEL_PATH[llama1b]} --seed 0"
  [smollm2]="python3 bench/random_gguf.py fill $SKEL ${MODEL_PATH[smollm2]} --seed 0"
  [llama8b]="python3 bench/make_bench_gguf.py ${MODEL_PATH[llama8b]} --seed 0 --shape llama8b --name Llama-3.1-8B-shaped")
t0=$SECONDS
pids=()
for m in $MODELS; do
  [ -s "${MODEL_PATH[$m]}" ] && continue
  [ -n "${MODEL_GEN[$m]:-}" ] || continue  # another entry's file
  ( timeout 240 ${MODEL_GEN[$m]} >"$RUN/gen-$m.log" 2>&1 || echo "making $m failed: $(tail -3 "$RUN/gen-$m.log")" ) &
  pids+=($!)
done
[ ${#pids[@]} -gt 0 ] && wait "${pids[@]}"
echo "models ready after $((SECONDS - t0)) s"

DEFAULT_VARIANTS="now default"
[ -n "$WGRT_BASE" ] && DEFAULT_VARIANTS="base now default"
VARIANTS=${VARIANTS:-$DEFAULT_VARIANTS}
for round in $(seq "$ROUNDS"); do
for m in $MODELS; do
  for v in $VARIANTS; do
    case $v in
      base) cmd=("$WGRT_BASE" bench) ;;
      now) cmd=("$WGRT" bench --limits adapter) ;;
      default) cmd=("$WGRT" bench --limits default) ;;
    esac
    echo "=== $m $v round $round (t=${SECONDS}s)"
    # shellcheck disable=SC2086  # MODEL_ARGS holds several words
    timeout -k 5 "$STEP_S" "${cmd[@]}" --model "${MODEL_PATH[$m]}" ${MODEL_ARGS[$m]:-} -p "$PP" -n "$TG" -r "$REPS" \
        --max-seconds 10 --json "$RUN/$m-$v-$round.json" >"$RUN/$m-$v-$round.out" 2>&1
    echo "rc=$?"; tail -n 4 "$RUN/$m-$v-$round.out"
  done
done
done

echo; echo "=== table (t=${SECONDS}s)"
python3 - "$RUN" "$MODELS" $VARIANTS <<'PY'
import glob, json, os, statistics, sys
run, models, variants = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
print("| model | variant | pp tok/s | tg tok/s | load s | GPU MiB | pp vs now | tg vs now |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for m in models:
    rows = {}
    for v in variants:
        docs = []
        for f in sorted(glob.glob(os.path.join(run, f"{m}-{v}-*.json"))):
            try:
                docs.append(json.load(open(f)))
            except Exception:
                pass
        if not docs:
            rows[v] = None
            continue
        def median(pick):  # over the rounds
            return statistics.median(next((t["tok_s"]["median"] for t in d["tests"] if pick(t)), float("nan"))
                                     for d in docs)
        rows[v] = (median(lambda t: t["n_gen"] == 0), median(lambda t: t["n_gen"] > 0),
                   statistics.median(d.get("load_seconds", float("nan")) for d in docs),
                   docs[-1].get("memory", {}).get("model_total_bytes", 0) / 2**20)
    ref = rows.get("now")
    for v in variants:
        r = rows[v]
        if r is None:
            print(f"| {m} | {v} | failed | | | | | |")
            continue
        rp = "%.3f" % (r[0] / ref[0]) if ref else ""
        rt = "%.3f" % (r[1] / ref[1]) if ref else ""
        print("| %s | %s | %.1f | %.1f | %.2f | %.0f | %s | %s |" % (m, v, r[0], r[1], r[2], r[3], rp, rt))
PY
