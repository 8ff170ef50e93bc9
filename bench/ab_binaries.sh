#!/usr/bin/env bash
# Two wgrt binaries A/B on the same machine and models (issue 32's "the new
# binary >= 0.98x the old one"): pp512 and tg128 of the Llama-3.2-1B-shaped
# Q4_0 model and SmolLM2-135M Q4_1, the binaries alternating (old, new, old,
# new) so that drift in clocks falls on both; then a table of medians and
# new/old ratios.
#
# Run from a wgrt checkout's root with .device staged (bench/device/stage_bench.sh),
# the old binary copied to .device/wgrt-old:
#   source bench/device/env.sh .device; export PYTHONPATH=$PWD/.device/py
#   OLD=.device/wgrt-old NEW=.device/wgrt bash bench/ab_binaries.sh
# Env: ROUNDS (2), REPS (3), MODELS ("llama1b smollm2").
set -uo pipefail
OLD=${OLD:?the old wgrt binary}
NEW=${NEW:?the new wgrt binary}
ROUNDS=${ROUNDS:-2}
REPS=${REPS:-3}
MODELS=${MODELS:-llama1b smollm2}
SKEL=${SKEL:-.device/bench/smollm2-135m-q4_1.skel.gguf}
RUN=${RUN:-/tmp/ab-binaries}
mkdir -p "$RUN"
declare -A FILE=([llama1b]=/tmp/llama1b-q4_0.gguf [smollm2]=/tmp/smollm2-135m-q4_1.gguf)
[[ " $MODELS " != *" llama1b "* ]] || [ -s "${FILE[llama1b]}" ] ||
  python3 bench/make_llama1b_gguf.py "${FILE[llama1b]}" --seed 0 >"$RUN/gen-llama.log" 2>&1 &
[[ " $MODELS " != *" smollm2 "* ]] || [ -s "${FILE[smollm2]}" ] ||
  python3 bench/random_gguf.py fill "$SKEL" "${FILE[smollm2]}" --seed 0 >"$RUN/gen-smol.log" 2>&1 &
wait
for round in $(seq "$ROUNDS"); do
  for m in $MODELS; do
    for which in old new; do
      bin=$OLD; [ "$which" = new ] && bin=$NEW
      out="$RUN/$m-$which-$round.json"
      timeout 120 "$bin" bench --model "${FILE[$m]}" -p 512 -n 128 -r "$REPS" --json "$out" >"$RUN/$m-$which-$round.log" 2>&1 ||
        { echo "$m $which round $round failed:"; tail -3 "$RUN/$m-$which-$round.log"; }
    done
  done
done
python3 - "$RUN" $MODELS <<'PY'
import glob, json, statistics, sys
run, models = sys.argv[1], sys.argv[2:]
print(f"{'model':<9} {'test':<7} {'old tok/s':>10} {'new tok/s':>10} {'new/old':>8}")
for m in models:
    rates = {}
    for which in ("old", "new"):
        for f in sorted(glob.glob(f"{run}/{m}-{which}-*.json")):
            for t in json.load(open(f))["tests"]:
                rates.setdefault((t["name"], which), []).append(t["tok_s"]["median"])
    for name in sorted({n for n, _ in rates}):
        old, new = statistics.median(rates.get((name, "old"), [0])), statistics.median(rates.get((name, "new"), [0]))
        print(f"{m:<9} {name:<7} {old:10.1f} {new:10.1f} {new / old if old else 0:8.3f}")
PY
