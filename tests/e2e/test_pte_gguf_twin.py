"""ExecuTorch's Llama export and a GGUF of the same shape run as one engine:
the exported program's linears move into the GGUF linear family and the
fusion passes fold them as they fold a GGUF model's (ops/passes/), so a
decode step has as many dispatches per layer in both forms.

The .pte files are tests/fixtures/llama/tiny_llama.pte (export_llama -qmode
4w, 2 layers, dim 64, 4/2 heads, FFN 128, vocab 256) and tiny_llama_8da4w.pte
(-qmode 8da4w: x requantized per row to int8 before each linear, which the
family does inside its kernels, after the norm it fuses); the twin is a random HF Llama
of those sizes written as GGUF with Q4_0 linears (tests/reference). Both are
profiled by `wgrt bench --profile` on one decode step.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "reference"))
import hf_tiny_models  # noqa: E402

WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))
FIX = ROOT / "tests" / "fixtures" / "llama"


def decode_profile(tmp_path: Path, *model_args: str) -> dict:
    out = tmp_path / "bench.json"
    proc = subprocess.run([str(WGRT), "bench", *model_args, "-p", "0", "-n", "4", "-r", "1", "--warmup-seconds", "0",
                           "--profile", "--top", "100", "--json", str(out)], capture_output=True, timeout=900)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    profiles = json.loads(out.read_text())["profiles"]
    decode = [p for p in profiles if p["what"].startswith("decode (1 token")]
    assert decode, profiles
    return {k["label"]: k["count"] for k in decode[0]["kernels"]}


def layer_kernels(kernels: dict) -> dict:
    """The kernels of the transformer layers (those a model has once per layer):
    the linear GEMVs with a residual, RoPE or SwiGLU epilogue, and attention."""
    marks = ("+residual", "+rope", "+swiglu", "sdpa")
    return {label: n for label, n in kernels.items() if any(m in label for m in marks)}


def without_dtype(label: str) -> str:
    return label.replace("Q4_0F32", "Q").replace("Q4_0", "Q").replace(" +dq8 x", "")


@pytest.mark.parametrize("fixture", ["tiny_llama", "tiny_llama_8da4w"])
def test_decode_dispatches_per_layer_equal_in_pte_and_gguf(tmp_path, fixture):
    twin = tmp_path / "twin.gguf"
    params = json.loads((FIX / f"{fixture}.params.json").read_text())
    hf_tiny_models.write_llama_like(params, twin, context=32)
    layers = params["n_layers"]
    pte = decode_profile(tmp_path, "--model", str(FIX / f"{fixture}.pte"), "--tokenizer",
                         str(FIX / "byte_tokenizer.gguf"))
    gguf_kernels = decode_profile(tmp_path, "--model", str(twin))
    pte_layer = {without_dtype(k): n for k, n in layer_kernels(pte).items()}
    gguf_layer = {without_dtype(k): n for k, n in layer_kernels(gguf_kernels).items()}
    print("pte:", pte, "\ngguf:", gguf_kernels)
    assert pte_layer == gguf_layer
    if fixture.endswith("8da4w"):  # the variant meant ran: every layer linear requantizes x
        assert all("+dq8 x" in k for k in layer_kernels(pte) if k.startswith("linear_ggml")), pte
    per_layer = sum(pte_layer.values()) / layers
    assert per_layer == 5, pte_layer  # Q/K/V + RoPE, attention, output + residual, gate/up + SwiGLU, down + residual
    # Nothing of ExecuTorch's own linear, norm or activation kernels is left.
    assert not any(k.startswith(("linear_q4gsw", "linear_dq8ca", "choose_qparams", "dq8_rows", "et_vk.rms_norm", "aten.sigmoid", "aten.mul", "aten.view_copy",
                                 "et_vk.prepack", "aten.add")) for k in pte), pte
