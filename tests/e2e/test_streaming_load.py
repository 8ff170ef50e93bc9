"""Weights stream from the file to the GPU (graph/constant_upload.h): the
host never holds a whole model. `wgrt generate` loads a Llama-3.1-8B-shaped
2-layer GGUF (0.91 GiB: hidden 4096, FFN 14,336, vocab 128,256, a 431 MB
Q6_K head stored in three runs of rows) while its anonymous memory is
sampled from /proc every 10 ms.

RssAnon is the process's own heap: the file's page cache is RssFile, and
lavapipe's GPU buffers and the queue's staging are shared memory
(RssShmem), so they do not count against it. Before streaming, the peak was
1,424 MiB on this model (each weight repacked whole in host memory, then
copied again for upload); streaming, 133 MiB.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from peak_memory import run_sampled  # noqa: E402 (the sampler the device benchmark uses)
WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))
CHUNK_MIB = 16  # graph/constant_upload.h's kDefaultUploadChunkBytes


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("streaming") / "llama8b_2layers.gguf"
    subprocess.run([sys.executable, str(ROOT / "bench" / "make_bench_gguf.py"), str(path), "--seed", "5",
                    "--layers", "2", "--hidden", "4096", "--ffn", "14336", "--output", "q6_k"],
                   check=True, capture_output=True)
    yield path
    path.unlink()


def test_loading_holds_no_whole_model_in_host_memory(model):
    file_mib = model.stat().st_size / 2**20
    rc, _, err, peak, samples, _ = run_sampled(
        [str(WGRT), "generate", "--model", str(model), "--prompt-tokens", "9,400,1234", "-n", "2", "--temp", "0",
         "--ignore-eos"])
    assert rc == 0, err
    print(f"model {file_mib:.0f} MiB; peak RssAnon {peak['RssAnon']:.0f} MiB, RssFile {peak['RssFile']:.0f}, "
          f"RssShmem {peak['RssShmem']:.0f} ({samples} samples)")
    assert samples > 20, "the process ended before it could be sampled"
    # The bound, and one no whole copy of this model could meet.
    assert peak["RssAnon"] <= 1024 + CHUNK_MIB, peak
    assert peak["RssAnon"] < file_mib / 2, peak

    # Progress in MiB/s, and GPU memory within 10 % of weights + KV cache.
    assert re.search(r"uploading \d+ MiB in [\d.]+ s \(\d+ MiB/s\)", err), err
    m = re.search(r"GPU memory: ([\d.]+) MiB for this model \(weights ([\d.]+) MiB, KV cache and activations "
                  r"([\d.]+) MiB\); peak on the device ([\d.]+) MiB", err)
    assert m, err
    weights, rest, peak_gpu = float(m.group(2)), float(m.group(3)), float(m.group(4))
    assert peak_gpu <= 1.10 * (weights + rest), m.group(0)
