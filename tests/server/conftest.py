"""Fixtures for the `wgrt serve` tests: the tiny random GGUF (tiny_gguf.py),
and servers started on a free loopback port (`--port 0`, the port read back
from the server's log). Every test talks to 127.0.0.1 only, with bounded
timeouts. Without a WebGPU adapter the tests fail under CI (CI=true or
WGRT_REQUIRE_GPU=1) and skip elsewhere, like the other suites."""
import http.client
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import openai
import pytest

from tiny_gguf import write_tiny_gguf

ROOT = Path(__file__).resolve().parents[2]
WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))
HOST = "127.0.0.1"
START_TIMEOUT_S = 180  # a cold shader cache on lavapipe takes a while


def _gpu_required() -> bool:
    return os.environ.get("CI") == "true" or os.environ.get("WGRT_REQUIRE_GPU") == "1"


@pytest.fixture(scope="session", autouse=True)
def adapter():
    proc = subprocess.run([str(WGRT), "info"], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        if _gpu_required():
            pytest.fail(f"no GPU adapter, and CI requires one: {proc.stderr.strip()}")
        pytest.skip(f"SKIPPED: no GPU adapter ({proc.stderr.strip()})")


class Server:
    """A `wgrt serve` process; its log goes to a file (a full pipe would stall it)."""

    def __init__(self, log_path: Path, *args: str):
        self.log_path = log_path
        self.log = open(log_path, "w+b")
        self.proc = subprocess.Popen([str(WGRT), "serve", "--host", HOST, "--port", "0", *args],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_TIMEOUT_S
        self.port = None
        while self.port is None:
            m = re.search(rb"listening on http://127\.0\.0\.1:(\d+)", log_path.read_bytes())
            if m:
                self.port = int(m.group(1))
            elif self.proc.poll() is not None:
                raise AssertionError(f"wgrt serve exited with {self.proc.returncode}:\n{self.log_text()}")
            elif time.monotonic() > deadline:
                self.proc.kill()
                raise AssertionError(f"wgrt serve did not start in {START_TIMEOUT_S} s:\n{self.log_text()}")
            else:
                time.sleep(0.05)

    def log_text(self) -> str:
        return self.log_path.read_bytes().decode(errors="replace")

    def client(self, timeout: float = 60) -> openai.OpenAI:
        # No retries (a lost request must show), no proxies from the environment.
        return openai.OpenAI(base_url=f"http://{HOST}:{self.port}/v1", api_key="unused", max_retries=0,
                             timeout=timeout, http_client=openai.DefaultHttpxClient(trust_env=False, timeout=timeout))

    def request(self, method: str, path: str, body=None, timeout: float = 60):
        """(status, headers, parsed JSON body) for a raw request; `body` may be bytes."""
        conn = http.client.HTTPConnection(HOST, self.port, timeout=timeout)
        try:
            data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
            conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            raw = resp.read()
            return resp.status, dict(resp.getheaders()), json.loads(raw)
        finally:
            conn.close()

    def health(self) -> dict:
        return self.request("GET", "/health")[2]

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")

    def stop(self, sig=signal.SIGTERM, timeout: float = 30) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"wgrt serve ignored signal {sig} for {timeout} s:\n{self.log_text()}")
        self.log.close()
        return self.proc.returncode


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    return write_tiny_gguf(tmp_path_factory.mktemp("model") / "tiny.gguf")


@pytest.fixture(scope="module")
def server(tiny_model, tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("serve") / "serve.log", "--model", str(tiny_model), "--queue", "16")
    yield srv
    assert srv.stop() == 0, srv.log_text()


def wgrt_generate(model, prompt, *args) -> str:
    """`wgrt generate --quiet`'s text (it prints the text and a newline)."""
    cmd = [str(WGRT), "generate", "--quiet", *(["--model", str(model)] if model else []), *args, "--", prompt]
    proc = subprocess.run(cmd, capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    out = proc.stdout.decode()
    assert out.endswith("\n")
    return out[:-1]
