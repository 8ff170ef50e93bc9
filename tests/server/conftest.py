"""Fixtures for the `wgrt serve` tests (helpers in serve_harness.py). Without
a WebGPU adapter the tests fail under CI (CI=true or WGRT_REQUIRE_GPU=1) and
skip elsewhere, like the other suites."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from serve_harness import WGRT, Server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from tiny_gguf import write_tiny_llama  # noqa: E402


def _gpu_required() -> bool:
    return os.environ.get("CI") == "true" or os.environ.get("WGRT_REQUIRE_GPU") == "1"


@pytest.fixture(scope="session", autouse=True)
def adapter():
    proc = subprocess.run([str(WGRT), "info"], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        if _gpu_required():
            pytest.fail(f"no GPU adapter, and CI requires one: {proc.stderr.strip()}")
        pytest.skip(f"SKIPPED: no GPU adapter ({proc.stderr.strip()})")


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    return write_tiny_llama(tmp_path_factory.mktemp("model") / "tiny.gguf")


@pytest.fixture(scope="module")
def server(tiny_model, tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("serve") / "serve.log", "--model", str(tiny_model), "--queue", "16")
    yield srv
    assert srv.stop() == 0, srv.log_text()
