"""Helpers for the `wgrt serve` tests: a server process started on a free
loopback port (`--port 0`, the port read back from its log), raw HTTP
requests, and `wgrt generate`'s text for comparison. Traffic goes to
127.0.0.1 only, with bounded timeouts."""
import http.client
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import openai

ROOT = Path(__file__).resolve().parents[2]
WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))
HOST = "127.0.0.1"
START_TIMEOUT_S = 180  # a cold shader cache on lavapipe takes a while


class Server:
    """A `wgrt serve` process; its log goes to a file (a full pipe would stall it)."""

    def __init__(self, log_path: Path, *args: str, env=None):
        self.log_path = log_path
        self.log = open(log_path, "w+b")
        self.proc = subprocess.Popen([str(WGRT), "serve", "--host", HOST, "--port", "0", *args],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env)
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


def wgrt_generate(model, prompt, *args) -> str:
    """`wgrt generate --quiet`'s text (it prints the text and a newline)."""
    cmd = [str(WGRT), "generate", "--quiet", *(["--model", str(model)] if model else []), *args, "--", prompt]
    proc = subprocess.run(cmd, capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    out = proc.stdout.decode()
    assert out.endswith("\n")
    return out[:-1]
