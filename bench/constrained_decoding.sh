#!/usr/bin/env bash
# What constrained decoding costs (issue 35): `wgrt generate` tokens/s with
# no constraint (GPU sampling, steps in flight), the same on the CPU
# sampler, and with each constraint (--json, --json-schema, --grammar; they
# sample on the CPU, since a mask needs the text so far). Variants run
# interleaved, REPS rounds, and the table gives medians and each one's ratio
# to the unconstrained GPU run and to the unconstrained CPU run.
#
# Usage: bench/constrained_decoding.sh MODEL.gguf   (WGRT=build/wgrt, N=128, REPS=3)
# On the device: after `source bench/device/env.sh .device`, with
# WGRT=.device/wgrt and the SmolLM2 skeleton filled (bench/random_gguf.py fill).
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${1:?usage: bench/constrained_decoding.sh MODEL.gguf}
WGRT=${WGRT:-build/wgrt} N=${N:-128} REPS=${REPS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A schema and a grammar that take many tokens to finish: a long array of
# records, and a long run of words.
cat >"$tmp/schema.json" <<'EOF'
{"type": "object", "properties": {"items": {"type": "array", "minItems": 40, "items": {"type": "object",
 "properties": {"name": {"type": "string"}, "kind": {"enum": ["a", "b", "c"]}, "n": {"type": "integer"}},
 "required": ["name", "kind", "n"], "additionalProperties": false}}}, "required": ["items"],
 "additionalProperties": false}
EOF
cat >"$tmp/words.gbnf" <<'EOF'
root ::= word (" " word){60,}
word ::= [a-z]{1,8}
EOF
declare -A ARGS=(
  [gpu]=""
  [cpu]="--cpu-sampling"
  [json]="--json"
  [schema]="--json-schema $tmp/schema.json"
  [grammar]="--grammar $tmp/words.gbnf"
)
VARIANTS="gpu cpu json schema grammar"
declare -A RATES
for r in $(seq "$REPS"); do
  for v in $VARIANTS; do
    # shellcheck disable=SC2086
    line=$("$WGRT" generate --model "$MODEL" --chat "List some things." -n "$N" --seed "$r" ${ARGS[$v]} 2>&1 >/dev/null |
           grep '^generation:' || true)
    rate=$(sed -E 's/.*= *([0-9.]+) tokens\/s.*/\1/; s/.* tokens in .*//' <<<"$line")
    count=$(sed -E 's/^generation: *([0-9]+) tokens.*/\1/' <<<"$line")
    echo "round $r $v: ${line:-failed}" >&2
    RATES[$v]="${RATES[$v]:-} ${rate:-0}:${count:-0}"
  done
done
median() { tr ' ' '\n' | grep -v '^$' | cut -d: -f1 | sort -g | awk '{a[NR]=$1} END {print (NR ? a[int((NR + 1) / 2)] : 0)}'; }
tokens() { tr ' ' '\n' | grep -v '^$' | cut -d: -f2 | sort -g | head -1; }
gpu=$(median <<<"${RATES[gpu]}") cpu=$(median <<<"${RATES[cpu]}")
echo "| variant | tok/s (median of $REPS) | fewest tokens | vs gpu | vs cpu |"
echo "| --- | ---: | ---: | ---: | ---: |"
for v in $VARIANTS; do
  m=$(median <<<"${RATES[$v]}")
  awk -v v="$v" -v m="$m" -v g="$gpu" -v c="$cpu" -v t="$(tokens <<<"${RATES[$v]}")" \
    'BEGIN { printf "| %s | %.1f | %s | %.2f | %.2f |\n", v, m, t, (g > 0 ? m / g : 0), (c > 0 ? m / c : 0) }'
done
