"""Fixtures for the `wgrt serve` tests (helpers in serve_harness.py). Without
a WebGPU adapter the tests fail under CI (CI=true or WGRT_REQUIRE_GPU=1) and
skip elsewhere, like the other suites."""
import os
import subprocess
from pathlib import Path

import pytest

from serve_harness import WGRT, Server
from server_gguf import write_tiny_gguf


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
    return write_tiny_gguf(tmp_path_factory.mktemp("model") / "tiny.gguf")


@pytest.fixture(scope="module")
def server(tiny_model, tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("serve") / "serve.log", "--model", str(tiny_model), "--queue", "16")
    yield srv
    assert srv.stop() == 0, srv.log_text()
