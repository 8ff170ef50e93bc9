#!/usr/bin/env python3
"""Soak: one Python process makes N generate calls on a tiny random GGUF
(tests/support/tiny_gguf.py: 1 layer, hidden 64, Q4_0)
and N calls of a .pte method with device outputs (add_chain.pte, each output
a new GPU buffer, read back every 10th call), then checks that the process's
resident memory and wgrt's live GPU bytes are flat: the mean of the last 100
samples within 2 % of the first 100's. A warm-up of 50 calls of each kind
comes first (allocator caches and pipelines settle there) and is not counted.

Usage: python3 tests/soak/soak.py [-n 1000] [--tokens 4]   (needs the wgrt
package: scripts/setup.sh installs it). Prints the figures; exit status 1 if
either is not flat. tests/soak/README.md keeps the last result.
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

import gguf
import numpy as np

import wgrt
from wgrt import _wgrt

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from tiny_gguf import write_tiny_llama  # noqa: E402

WARMUP = 50


def rss_bytes():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def gpu_bytes():
    return _wgrt._testing.live_device_bytes()


def drift(samples):
    first, last = np.mean(samples[:100]), np.mean(samples[-100:])
    return (last - first) / first if first else 0.0, first, last


def soak(name, n, call):
    for i in range(WARMUP):
        call(i)
    rss, gpu = [], []
    t0 = time.time()
    for i in range(n):
        call(WARMUP + i)
        rss.append(rss_bytes())
        gpu.append(gpu_bytes())
    seconds = time.time() - t0
    ok = True
    for what, samples in (("RSS", rss), ("GPU bytes", gpu)):
        d, first, last = drift(samples)
        flat = abs(d) <= 0.02
        ok &= flat
        print(f"{name}: {what} first-100 mean {first / 2**20:.2f} MiB, last-100 mean {last / 2**20:.2f} MiB, "
              f"drift {100 * d:+.2f} % ({'flat' if flat else 'NOT FLAT'}), max {max(samples) / 2**20:.2f} MiB")
    print(f"{name}: {n} calls in {seconds:.1f} s ({1000 * seconds / n:.1f} ms per call)")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=1000, help="calls of each kind (default 1000)")
    ap.add_argument("--tokens", type=int, default=4, help="tokens per generate call (default 4)")
    ap.add_argument("--temperature", type=float, default=0.8, help="sampling temperature (default 0.8)")
    a = ap.parse_args()
    if a.n < 200:
        ap.error("-n must be at least 200 (the first and last 100 calls are compared)")
    print("adapter:", wgrt.adapter_info())

    with tempfile.TemporaryDirectory() as tmp:
        llm = wgrt.load(write_tiny_llama(Path(tmp) / "tiny.gguf", layers=1, context=64,
                                        qtype=gguf.GGMLQuantizationType.Q4_0), context=64, chunk=16)

        def generate(i):
            pieces = list(llm.generate("hello world", max_tokens=a.tokens, temperature=a.temperature, seed=i,
                                       ignore_eos=True))
            assert len(pieces) >= 1

        ok = soak(f"generate ({a.tokens} tokens)", a.n, generate)

    program = wgrt.load(ROOT / "tests" / "fixtures" / "pte" / "add_chain.pte")
    forward = program.method("forward")
    x = np.load(ROOT / "tests" / "fixtures" / "pte" / "add_chain.in0.npy")
    y = np.load(ROOT / "tests" / "fixtures" / "pte" / "add_chain.in1.npy")
    want = np.load(ROOT / "tests" / "fixtures" / "pte" / "add_chain.out0.npy")

    def method_call(i):
        (out,) = forward(x, y, outputs="device")
        if i % 10 == 0:
            np.testing.assert_array_equal(out.numpy(), want)

    ok &= soak("add_chain.pte forward, device outputs", a.n, method_call)
    print("soak:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
