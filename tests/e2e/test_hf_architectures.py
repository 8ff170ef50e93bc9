"""Each supported GGUF architecture against Hugging Face `transformers`: a tiny
random model built in its HF form, written to GGUF as llama.cpp's converter
lays it out (tests/reference/hf_tiny_models.py), run by `wgrt generate`.
wgrt's logits for the prompt and for each greedy decode step after it are
compared with transformers' (float32 eager attention, its own KV cache).

Tolerance: both sides compute in float32 with different summation orders;
logits span about +-20 to +-40 here. We allow 5e-4 absolute (measured 6e-6 to 2.6e-5 on
lavapipe) and require each step's top-2 margin to exceed 10x that, so the
greedy picks are not decided by rounding.
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "reference"))
import hf_tiny_models  # noqa: E402

pytest.importorskip("torch", reason="torch is installed by scripts/setup.sh")
pytest.importorskip("transformers", reason="transformers is installed by scripts/setup.sh")

WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))
PROMPT = [72, 101, 108, 108, 111, 44, 32, 119, 111]  # "Hello, wo" as byte tokens
STEPS = 6  # the prompt's logits, then 5 decode steps
LOGIT_TOL = 5e-4


def run_wgrt(model_path: Path, tmp_path: Path):
    logits_path = tmp_path / "logits.npy"
    cmd = [str(WGRT), "generate", "--model", str(model_path), "--prompt-tokens", ",".join(map(str, PROMPT)),
           "-n", str(STEPS), "--temp", "0", "--ignore-eos", "--dump-logits", str(logits_path),
           "--print-token-ids", "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, timeout=600)
    stderr = proc.stderr.decode(errors="replace")
    assert proc.returncode == 0, stderr
    line = [l for l in stderr.splitlines() if l.startswith("token ids: ")]
    assert line, stderr
    return [int(t) for t in line[-1][len("token ids: "):].split(",")], np.load(logits_path)


@pytest.mark.parametrize("arch", sorted(hf_tiny_models.ARCHS))
def test_logits_match_transformers_over_prefill_and_decode(arch, tmp_path):
    model = hf_tiny_models.build(arch, seed=0)
    path = tmp_path / f"tiny_{arch}.gguf"
    hf_tiny_models.write_gguf(model, arch, path)
    want_ids, want = hf_tiny_models.greedy_logits(model, PROMPT, STEPS)
    top2 = np.sort(want, axis=1)[:, -2:]
    assert (top2[:, 1] - top2[:, 0]).min() > 10 * LOGIT_TOL, "pick another seed: a greedy step is a near tie"

    ids, got = run_wgrt(path, tmp_path)
    assert got.shape == want.shape == (STEPS, hf_tiny_models.VOCAB)
    diff = np.abs(got - want).max(axis=1)
    print(f"{arch}: max |logit difference| per step {np.array2string(diff, precision=2)}, "
          f"logit range +-{np.abs(want).max():.1f}")
    assert diff.max() <= LOGIT_TOL
    assert ids == want_ids


def test_quantized_weights_as_stored_in_the_file(tmp_path):
    # Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0 matrices in the file's block layout (the
    # ops re-lay them out at load), from gguf.quants.quantize; transformers
    # runs the same rounded weights in float32.
    from gguf import GGMLQuantizationType as Q

    model = hf_tiny_models.build("llama", seed=0)
    types = {"model.layers.0.self_attn.q_proj.weight": Q.Q5_0, "model.layers.0.self_attn.k_proj.weight": Q.Q5_1,
             "model.layers.0.self_attn.v_proj.weight": Q.Q4_0, "model.layers.0.mlp.down_proj.weight": Q.Q8_0,
             "model.layers.1.mlp.gate_proj.weight": Q.Q4_1, "model.layers.1.self_attn.o_proj.weight": Q.Q5_0}
    quant = hf_tiny_models.quantize_weights(model, types)
    path = tmp_path / "tiny_llama_quant.gguf"
    hf_tiny_models.write_gguf(model, "llama", path, quant=quant)
    want_ids, want = hf_tiny_models.greedy_logits(model, PROMPT, STEPS)
    ids, got = run_wgrt(path, tmp_path)
    diff = np.abs(got - want).max(axis=1)
    print(f"quantized llama: max |logit difference| per step {np.array2string(diff, precision=2)}")
    assert diff.max() <= LOGIT_TOL
    assert ids == want_ids
