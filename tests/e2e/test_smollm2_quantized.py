"""SmolLM2-135M-Instruct requantized by llama.cpp's own llama-quantize into the
mixes people download (Q4_K_M, Q5_K_M, Q3_K_M, Q2_K, IQ4_XS, Q5_0, Q8_0, and
Q2_K with llama-quantize's --pure, the only one holding Q2_K blocks here;
scripts/make_smollm2_quants.sh, run once by scripts/setup.sh) against the
independent numpy reference (tests/reference/llama_numpy.py: the same file
dequantized by the `gguf` package, fp32 math): the logits of the prompt and of
every one of 32 greedy decode steps, and the 32 greedy tokens.

On SmolLM2 (width 576, not a multiple of 256) llama.cpp falls back for most
matrices (Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0, Q2_K/Q3_K -> Q4_0, IQ4_XS
-> IQ4_NL), so these files carry 2-5 weight types each, as real downloads do.

Tolerance: fp32 on both sides, differing in summation order only; 1e-3
absolute (logits span about +-20), as test_smollm2_reference.py; so every
GEMV decodes with f32 x (WGRT_GEMV_ACT=f32: the default rounds x to int8
twice on large matrices, checked at its own tolerance there).

Without the files the tests fail under CI (CI=true) and skip elsewhere.
"""
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "reference"))
import llama_numpy  # noqa: E402

WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))
QUANTS = Path(os.environ.get("WGRT_CACHE_DIR", Path.home() / ".cache" / "wgrt")) / "smollm2-quants"
PROMPT = [504, 3575, 282, 4649, 314]  # "The capital of France is"
N_GREEDY = 32
LOGIT_TOL = 1e-3

# The weight types each mix must contain (so that a change in llama-quantize's
# choices, or a file that is not what it claims, is noticed).
MIXES = {
    "Q4_K_M": {"Q4_K", "Q5_0", "Q6_K", "Q8_0"},
    "Q5_K_M": {"Q5_K", "Q5_1", "Q6_K", "Q8_0"},
    "Q3_K_M": {"Q4_K", "Q5_K", "Q4_0", "Q5_0", "Q5_1"},
    "Q2_K": {"Q3_K", "Q4_0"},
    "Q2_K-pure": {"Q2_K", "Q4_0"},
    "IQ4_XS": {"IQ4_XS", "IQ4_NL"},
    "Q5_0": {"Q5_0"},
    "Q8_0": {"Q8_0"},
}


def model_path(mix: str) -> Path:
    path = QUANTS / f"SmolLM2-135M-Instruct.{mix}.gguf"
    if not path.exists():
        why = f"{path} is missing: run scripts/make_smollm2_quants.sh (scripts/setup.sh does)"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    return path


def reference_run(model):
    """32 greedy tokens and the logits each step argmaxed: [32, vocab]."""
    cache = llama_numpy.KVCache(model.hp, len(PROMPT) + N_GREEDY)
    rows = [llama_numpy.forward(model, PROMPT, cache, 0)[-1]]
    ids = [int(np.argmax(rows[-1]))]
    for i in range(1, N_GREEDY):
        rows.append(llama_numpy.forward(model, [ids[-1]], cache, len(PROMPT) + i - 1)[-1])
        ids.append(int(np.argmax(rows[-1])))
    return ids, np.stack(rows)


@pytest.mark.parametrize("mix", list(MIXES))
def test_llama_quantize_mix_matches_numpy_reference(tmp_path, mix):
    path = model_path(mix)
    model = llama_numpy.load_model(str(path))
    import gguf
    types = Counter(gguf.GGMLQuantizationType(t.tensor_type).name for t in gguf.GGUFReader(str(path)).tensors)
    print(f"{mix}: tensor types {dict(types)}")
    assert MIXES[mix] <= set(types), (mix, dict(types))

    ref_ids, ref_logits = reference_run(model)
    logits_path = tmp_path / "logits.npy"
    proc = subprocess.run([str(WGRT), "generate", "--model", str(path), "--prompt-tokens", ",".join(map(str, PROMPT)),
                           "-n", str(N_GREEDY), "--temp", "0", "--ignore-eos", "--print-token-ids",
                           "--dump-logits", str(logits_path)], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "WGRT_GEMV_ACT": "f32"})
    assert proc.returncode == 0, proc.stderr
    line = [l for l in proc.stderr.splitlines() if l.startswith("token ids: ")]
    assert line, proc.stderr
    ids = [int(t) for t in line[-1][len("token ids: "):].split(",")]
    logits = np.load(logits_path)
    steps = min(len(logits), len(ref_logits))
    assert steps >= N_GREEDY - 1, logits.shape
    diff = np.abs(logits[:steps] - ref_logits[:steps]).max(axis=1)
    top2 = np.sort(ref_logits, axis=1)[:, -2:]
    print(f"{mix}: max |logit difference| prompt {diff[0]:.3g}, over {steps} steps {diff.max():.3g}; "
          f"smallest top-2 margin {float((top2[:, 1] - top2[:, 0]).min()):.3g}")
    assert diff.max() <= LOGIT_TOL, (mix, diff)
    assert ids == ref_ids, (mix, ids, ref_ids)
