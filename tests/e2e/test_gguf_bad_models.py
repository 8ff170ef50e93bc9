"""GGUF models wgrt cannot run, or that contradict themselves, are refused
by `wgrt generate` with one error line naming the problem, before anything
runs. The files are the tiny llama of hf_tiny_models.py with one thing
changed."""
import os
import subprocess
import sys
from pathlib import Path

import gguf
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "reference"))
import hf_tiny_models  # noqa: E402

pytest.importorskip("torch", reason="torch is installed by scripts/setup.sh")
pytest.importorskip("transformers", reason="transformers is installed by scripts/setup.sh")

WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))


@pytest.fixture(scope="module")
def model():
    return hf_tiny_models.build("llama", seed=0)


def error_line(path: Path, *extra) -> str:
    proc = subprocess.run([str(WGRT), "generate", "--model", str(path), "--prompt-tokens", "72,105", "-n", "1",
                           "--temp", "0", "--quiet", *extra], capture_output=True, timeout=300)
    stderr = proc.stderr.decode(errors="replace")
    assert proc.returncode != 0, stderr
    lines = [l for l in stderr.splitlines() if l.startswith("wgrt generate: error")]
    assert len(lines) == 1, stderr
    return lines[0]


def test_unknown_architecture_is_named(model, tmp_path):
    path = tmp_path / "m.gguf"
    hf_tiny_models.write_gguf(model, "llama", path, meta={"general.architecture": "mamba9"})
    line = error_line(path)
    assert "architecture 'mamba9' is not supported" in line


def test_tensor_type_without_kernel_is_named(model, tmp_path):
    # Q8_1 (ggml's activation format) as a weight: 32 rows of 64 elements, 2 blocks of 40 bytes each.
    block_size, block_bytes = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType.Q8_1]
    raw = np.random.default_rng(0).integers(0, 256, (32, 64 // block_size * block_bytes), dtype=np.uint8)
    path = tmp_path / "m.gguf"
    hf_tiny_models.write_gguf(model, "llama", path, raw={"blk.0.attn_v.weight": (raw, gguf.GGMLQuantizationType.Q8_1)})
    line = error_line(path)
    assert "blk.0.attn_v.weight" in line and "Q8_1 (9)" in line


def test_embedding_length_disagreeing_with_tensors(model, tmp_path):
    path = tmp_path / "m.gguf"
    hf_tiny_models.write_gguf(model, "llama", path, meta={"embedding_length": 48})
    line = error_line(path)
    assert "embedding_length is 48 but token_embd.weight has 64 columns" in line


def test_output_head_rows_are_checked_by_the_loader(model, tmp_path):
    head = model.lm_head.weight.detach().numpy()[:200]
    path = tmp_path / "m.gguf"
    hf_tiny_models.write_gguf(model, "llama", path, raw={"output.weight": (np.ascontiguousarray(head), None)})
    line = error_line(path)
    assert "output.weight is [200, 64], expected [256, 64]" in line


def test_context_length_zero(model, tmp_path):
    path = tmp_path / "m.gguf"
    hf_tiny_models.write_gguf(model, "llama", path, meta={"context_length": 0})
    assert "llama.context_length is 0, expected a positive length" in error_line(path)
    hf_tiny_models.write_gguf(model, "llama", path)
    assert "context length 0 and chunk" in error_line(path, "--ctx", "0")


@pytest.mark.parametrize("key,value,want", [
    ("attention.layer_norm_rms_epsilon", float("nan"), "layer_norm_rms_epsilon is nan, expected a finite number >= 0"),
    ("attention.layer_norm_rms_epsilon", -1.0, "layer_norm_rms_epsilon is -1.000000, expected a finite number >= 0"),
    ("rope.freq_base", 0.0, "rope.freq_base is 0.000000, expected a finite number > 0"),
    ("rope.freq_base", float("inf"), "rope.freq_base is inf, expected a finite number > 0"),
])
def test_hyperparameters_that_would_make_nan_are_named(model, tmp_path, key, value, want):
    """Found by tests/hostile/campaign.py: these loaded and every logit was
    NaN, so the first draw failed with no word on the cause."""
    path = tmp_path / "m.gguf"
    hf_tiny_models.write_gguf(model, "llama", path, meta={key: value})
    assert want in error_line(path)


def test_prompt_token_ids_past_int32_are_named_as_written(model, tmp_path):
    path = tmp_path / "m.gguf"
    hf_tiny_models.write_gguf(model, "llama", path)
    proc = subprocess.run([str(WGRT), "generate", "--model", str(path), "--prompt-tokens", "72,99999999999", "-n", "1"],
                          capture_output=True, timeout=300)
    assert proc.returncode != 0
    assert "'99999999999' is not a token id" in proc.stderr.decode(errors="replace")
