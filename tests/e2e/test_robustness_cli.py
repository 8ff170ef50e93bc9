"""The wgrt command on malformed or mismatched models: a clear error and exit
status 1, never a crash; and sampling restricted to the tokenizer's
vocabulary when the model has more output rows than the tokenizer has tokens."""
import os
import subprocess
import sys
from pathlib import Path

import gguf

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from tiny_gguf import rewrite, write_tiny_llama  # noqa: E402

WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))
FIX = ROOT / "tests" / "fixtures" / "llama"


def wgrt(*args, timeout=300):
    return subprocess.run([str(WGRT), *map(str, args)], capture_output=True, text=True, errors="replace",
                          timeout=timeout)


def test_tiny_random_gguf_generates(tmp_path):
    model = write_tiny_llama(tmp_path / "tiny.gguf", layers=1, qtype=gguf.GGMLQuantizationType.Q4_0)
    proc = wgrt("generate", "--model", model, "--prompt-tokens", "1,2,3", "-n", "4", "--temp", "0", "--ignore-eos",
                "--quiet")
    assert proc.returncode == 0, proc.stderr


def test_vector_attn_q_is_a_clear_error_not_a_crash(tmp_path):
    """A 1-D attn_q weight once threw std::out_of_range past the CLI (abort)."""
    model = write_tiny_llama(tmp_path / "tiny.gguf", layers=1, qtype=gguf.GGMLQuantizationType.Q4_0)

    def flatten(raw, shape, qtype):
        n = 1
        for d in shape:
            n *= d
        return raw, (n,)

    bad = rewrite(model, tmp_path / "vector_q.gguf", "blk.0.attn_q.weight", flatten)
    proc = wgrt("generate", "--model", bad, "--prompt-tokens", "1,2", "-n", "2", "--temp", "0")
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "wgrt generate: error (InvalidProgram)" in proc.stderr, proc.stderr
    assert "blk.0.attn_q.weight" in proc.stderr, proc.stderr


def test_sampling_stays_inside_a_smaller_tokenizer(tmp_path):
    """tiny_llama.pte has 256 logits; a 200-token tokenizer must never see ids
    200..255. Near-uniform sampling (temperature 5, no filters) over 28 tokens
    would draw one of the 56 extra ids with probability about 1 - (200/256)^28 = 0.999."""
    sys.path.insert(0, str(ROOT / "tools" / "fixtures"))
    from make_byte_tokenizer import write_byte_tokenizer
    n = 200
    tok = write_byte_tokenizer(tmp_path / "tok200.gguf", n)
    proc = wgrt("generate", "--model", FIX / "tiny_llama.pte", "--tokenizer", tok, "--prompt-tokens", "3,4,5",
                "-n", "28", "--temp", "5", "--top-k", "0", "--top-p", "1", "--min-p", "0", "--seed", "7",
                "--ignore-eos", "--print-token-ids", "--quiet")
    assert proc.returncode == 0, proc.stderr
    lines = [l for l in proc.stderr.splitlines() if l.startswith("token ids: ")]
    assert lines, proc.stderr
    ids = [int(t) for t in lines[-1][len("token ids: "):].split(",")]
    assert len(ids) == 28
    assert max(ids) < n, ids
