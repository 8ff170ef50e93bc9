"""`wgrt generate` on a Llama exported by ExecuTorch's export_llama with the
Vulkan backend (tests/fixtures/llama, 4-bit weights, random), through the same
generation loop as GGUF models: the prompt's logits and a greedy continuation
against eager torch on the exporter's own module (goldens in the fixture).

Tolerance: 1e-4 absolute on logits (fp32 on both sides; measured 2.4e-7).
"""
import json
import os
import subprocess
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))
FIX = ROOT / "tests" / "fixtures" / "llama"


def test_pte_llama_generates_the_eager_greedy_tokens(tmp_path):
    manifest = json.loads((FIX / "tiny_llama.json").read_text())
    steps = manifest["steps"]
    prompt = np.load(FIX / steps[0]["inputs"][0]["file"])[0].tolist()
    # Each decode step's input token is eager torch's greedy pick of the step before.
    want = [int(np.load(FIX / s["inputs"][0]["file"])[0, 0]) for s in steps[1:]]
    want.append(int(np.load(FIX / steps[-1]["logits"]["file"]).argmax()))
    logits_path = tmp_path / "logits.npy"
    proc = subprocess.run(
        [str(WGRT), "generate", "--model", str(FIX / "tiny_llama.pte"), "--tokenizer", str(FIX / "byte_tokenizer.gguf"),
         "--prompt-tokens", ",".join(map(str, prompt)), "-n", str(len(want)), "--temp", "0", "--ignore-eos",
         "--print-token-ids", "--dump-logits", str(logits_path), "--quiet"],
        capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    lines = [l for l in proc.stderr.decode(errors="replace").splitlines() if l.startswith("token ids: ")]
    assert lines, proc.stderr
    assert [int(t) for t in lines[-1][len("token ids: "):].split(",")] == want
    ref = np.load(FIX / steps[0]["logits"]["file"])[0]
    assert float(np.abs(np.load(logits_path)[0] - ref).max()) <= 1e-4


def test_pte_model_without_a_tokenizer_is_a_clear_error():
    proc = subprocess.run([str(WGRT), "generate", "--model", str(FIX / "tiny_llama.pte"), "hello"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "--tokenizer" in proc.stderr
