"""The opt-in f16 KV cache (`--kv-f16`) on SmolLM2-135M-Instruct (Q4_1): its
32 greedy tokens against the f32 cache's, and the KV bytes it reports.

Both runs use f32 GEMMs (WGRT_MATMUL=f32) so that the cache is the only
difference. The tokens must be equal, or first differ where the f32 run's
top-two logit margin is below MARGIN (rounding K/V rows to f16 may then
swap a near tie); the logits before any divergence must agree within
LOGIT_TOL. The run prints the worst logit difference and, if any, the first
divergence with its margin.
"""
import os
import re
import subprocess

import numpy as np

from test_smollm2_reference import PROMPT, WGRT, default_model

N = 32
LOGIT_TOL = 0.1   # absolute; logits span about +-20 (f16 rows: 2^-11 relative each)
MARGIN = 0.2


def generate(tmp_path, *extra):
    path = tmp_path / f"logits{len(extra)}.npy"
    cmd = [str(WGRT), "generate", "--model", str(default_model()), "--prompt-tokens", ",".join(map(str, PROMPT)),
           "-n", str(N), "--temp", "0", "--ignore-eos", "--print-token-ids", "--quiet", "--dump-logits", str(path),
           *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env={**os.environ, "WGRT_MATMUL": "f32"})
    assert proc.returncode == 0, proc.stderr
    line = [l for l in proc.stderr.splitlines() if l.startswith("token ids: ")][-1]
    return [int(t) for t in line[len("token ids: "):].split(",")], np.load(path)


def test_f16_cache_keeps_the_greedy_tokens(tmp_path):
    ids32, logits32 = generate(tmp_path)
    ids16, logits16 = generate(tmp_path, "--kv-f16")
    assert len(ids32) == len(ids16) == N
    first = next((i for i in range(N) if ids32[i] != ids16[i]), None)
    upto = N if first is None else first + 1
    worst = float(np.abs(logits32[:upto] - logits16[:upto]).max())
    print(f"f16 KV cache: worst |logit difference| over {upto} steps {worst:.4f}")
    assert worst < LOGIT_TOL
    if first is not None:
        top2 = np.sort(logits32[first])[-2:]
        margin = float(top2[1] - top2[0])
        print(f"first divergence at token {first}: f32 margin {margin:.4f}")
        assert margin < MARGIN, f"diverged at {first} where the f32 run's margin is {margin}"


def test_f16_cache_halves_the_kv_bytes():
    def kv_mib(*extra):
        out = subprocess.run([str(WGRT), "bench", "--model", str(default_model()), "-p", "8", "-n", "0", "-r", "1",
                              "--ctx", "512", *extra], capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        return float(re.search(r"KV cache ([0-9.]+) MiB", out.stdout).group(1))
    f32, f16 = kv_mib(), kv_mib("--kv-f16")
    print(f"KV cache at context 512: {f32} MiB f32, {f16} MiB f16")
    assert f32 > 0 and abs(f16 - f32 / 2) <= 0.1
