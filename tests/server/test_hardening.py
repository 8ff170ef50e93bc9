"""`wgrt serve` exposed to clients it cannot trust (issue 36): the API key,
the body limit, the deadline for receiving a request (a client dripping one
byte at a time is dropped), the cap on open connections, and CORS for web
pages. Each test starts its own server on the tiny model."""
import os
import select
import shutil
import socket
import time

import openai
import pytest

from serve_harness import HOST, Server

CHAT = {"model": "tiny", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}


@pytest.fixture
def serve(tiny_model, tmp_path):
    """Starts `wgrt serve` with extra arguments (and environment); stops them all after the test."""
    servers = []

    def start(*args, env=None):
        srv = Server(tmp_path / f"serve{len(servers)}.log", "--model", str(tiny_model), *args, env=env)
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        assert srv.stop() == 0, srv.log_text()


def raw_request(port, method, path, headers=None, body=b""):
    """(status, headers) of one request on a new connection."""
    import http.client
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}
    finally:
        conn.close()


@pytest.mark.parametrize("from_env", [False, True])
def test_api_key_guards_every_route_but_health(serve, from_env):
    key = "s3cret-key"
    srv = serve(env={**os.environ, "WGRT_API_KEY": key}) if from_env else serve("--api-key", key)
    assert srv.request("GET", "/health")[0] == 200
    status, headers, body = srv.request("GET", "/v1/models")
    assert status == 401 and body["error"]["code"] == "invalid_api_key" and headers["WWW-Authenticate"] == "Bearer"
    status, _ = raw_request(srv.port, "GET", "/v1/models", {"Authorization": "Bearer s3cret-kez"})
    assert status == 401
    status, _ = raw_request(srv.port, "POST", "/v1/chat/completions", {"Authorization": f"Bearer {key}x"})
    assert status == 401
    # The official client sends the key as a bearer token.
    client = openai.OpenAI(base_url=f"http://{HOST}:{srv.port}/v1", api_key=key, max_retries=0,
                           http_client=openai.DefaultHttpxClient(trust_env=False, timeout=60))
    assert client.chat.completions.create(**CHAT).choices[0].finish_reason == "length"
    wrong = openai.OpenAI(base_url=f"http://{HOST}:{srv.port}/v1", api_key="nope", max_retries=0,
                          http_client=openai.DefaultHttpxClient(trust_env=False, timeout=60))
    with pytest.raises(openai.AuthenticationError):
        wrong.models.list()


def test_body_limit_is_configurable(serve):
    srv = serve("--max-body", "4096")
    small = {"model": "tiny", "prompt": "hi", "max_tokens": 1, "user": "x" * 3000}  # `user` is ignored
    assert srv.request("POST", "/v1/completions", small)[0] == 200
    status, _, body = srv.request("POST", "/v1/completions", {**small, "user": "x" * 5000})
    assert status == 413 and "error" in body


def _closed_by_peer(sock):
    """Whether the server has closed the connection (EOF or reset), without blocking."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        return sock.recv(4096) == b""
    except ConnectionResetError:
        return True


def test_a_client_dripping_its_request_is_dropped(serve):
    srv = serve("--timeout", "2")
    sock = socket.create_connection((HOST, srv.port), timeout=10)
    request = b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + b"x" * 100
    t0 = time.monotonic()
    closed_after = None
    try:
        for byte in request:  # a byte every 0.2 s: every read succeeds, the request never completes in time
            try:
                sock.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                closed_after = time.monotonic() - t0
                break
            if _closed_by_peer(sock):
                closed_after = time.monotonic() - t0
                break
            time.sleep(0.2)
    finally:
        sock.close()
    assert closed_after is not None and closed_after < 5, "a client sending 5 bytes/s kept its connection"
    assert srv.request("GET", "/health")[0] == 200  # and the server serves others


def test_answers_may_take_longer_than_the_timeout(serve):
    """The deadline is for receiving a request: a stream that runs past it,
    and the next request on the same keep-alive connection, are served."""
    srv = serve("--timeout", "1")
    client = openai.OpenAI(base_url=f"http://{HOST}:{srv.port}/v1", api_key="none", max_retries=0,
                           http_client=openai.DefaultHttpxClient(trust_env=False, timeout=60))
    t0 = time.monotonic()
    chunks = list(client.completions.create(model="tiny", prompt="Once", max_tokens=2000, temperature=0, stream=True,
                                            extra_body={"ignore_eos": True}))
    assert chunks[-1].choices[0].finish_reason == "length"
    took = time.monotonic() - t0
    assert took > 1.5, f"the stream took {took:.1f} s: too short to show the timeout does not cut it"
    assert client.completions.create(model="tiny", prompt="Once", max_tokens=2).choices[0].finish_reason


def test_connections_past_the_cap_get_503(serve):
    srv = serve("--max-connections", "2", "--timeout", "20")
    idle = [socket.create_connection((HOST, srv.port), timeout=10) for _ in range(2)]
    time.sleep(0.3)  # both accepted and holding their slots
    try:
        status, headers = raw_request(srv.port, "GET", "/health")
        assert status == 503 and headers["retry-after"] == "1"
    finally:
        for s in idle:
            s.close()
    deadline = time.monotonic() + 5
    while raw_request(srv.port, "GET", "/health")[0] != 200:
        assert time.monotonic() < deadline, "the slots were not freed"
        time.sleep(0.1)


def test_cors_is_off_unless_asked_for(serve):
    plain = serve()
    _, headers = raw_request(plain.port, "GET", "/v1/models", {"Origin": "http://example.com"})
    assert "access-control-allow-origin" not in headers
    srv = serve("--cors", "http://example.com", "--api-key", "k")
    status, headers = raw_request(srv.port, "OPTIONS", "/v1/chat/completions",
                                  {"Origin": "http://example.com", "Access-Control-Request-Method": "POST",
                                   "Access-Control-Request-Headers": "authorization, content-type"})
    assert status == 204 and headers["access-control-allow-origin"] == "http://example.com"
    assert "Authorization" in headers["access-control-allow-headers"]
    # Answers, refusals included, carry the header (a page can read the 401).
    status, headers = raw_request(srv.port, "GET", "/v1/models", {"Origin": "http://example.com"})
    assert status == 401 and headers["access-control-allow-origin"] == "http://example.com"
    status, headers = raw_request(srv.port, "GET", "/v1/models", {"Authorization": "Bearer k"})
    assert status == 200 and headers["access-control-allow-origin"] == "http://example.com"


def test_a_lost_device_fails_one_request_and_the_model_comes_back(serve):
    """Issue 36, faults: the GPU device is lost as the second request starts
    (a test hook standing in for a driver reset): that request gets a 503
    device_lost, the server loads the model again on a new device and
    serves the next request as before."""
    srv = serve("--test-lose-device-at-request", "2")
    body = {"model": "tiny", "prompt": "Once upon a time", "max_tokens": 6, "temperature": 0}
    status, _, first = srv.request("POST", "/v1/completions", body)
    assert status == 200
    status, headers, lost = srv.request("POST", "/v1/completions", body)
    assert status == 503 and lost["error"]["code"] == "device_lost" and headers["Retry-After"] == "1", lost
    status, _, again = srv.request("POST", "/v1/completions", body)
    assert status == 200 and again["choices"][0]["text"] == first["choices"][0]["text"]
    assert "loaded again" in srv.log_text() and srv.health()["status"] == "ok"


def test_a_lost_device_that_cannot_be_recovered_stops_the_server_clearly(tiny_model, tmp_path):
    """When the model cannot be loaded again (here its file is gone), the
    server says why and exits 1, rather than failing every request after."""
    model = tmp_path / "gone.gguf"
    shutil.copy(tiny_model, model)
    srv = Server(tmp_path / "serve.log", "--model", str(model), "--test-lose-device-at-request", "1")
    model.unlink()
    status, _, lost = srv.request("POST", "/v1/completions", {"model": "tiny", "prompt": "hi", "max_tokens": 2})
    assert status == 503 and lost["error"]["code"] == "device_lost"
    assert srv.proc.wait(timeout=30) == 1
    log = srv.log_text()
    assert "could not be loaded again" in log and "gone.gguf" in log, log


def test_a_failed_gpu_allocation_fails_one_request_and_the_next_succeeds(serve):
    """Issue 36, faults: a GPU buffer allocation fails during the second
    request (a test hook standing in for an out-of-memory): that request
    gets a 500 naming it, and the server serves the next one as before.
    The second asks for logprobs, so it runs alone and makes its own sampler
    and readback rings (a batched request allocates nothing on the GPU)."""
    srv = serve("--test-fail-allocation-at-request", "2")
    body = {"model": "tiny", "prompt": "Once upon a time", "max_tokens": 6, "temperature": 0}
    status, _, first = srv.request("POST", "/v1/completions", body)
    assert status == 200
    status, _, failed = srv.request("POST", "/v1/completions", {**body, "logprobs": 1})
    assert status == 500 and "cannot allocate" in failed["error"]["message"], failed
    status, _, again = srv.request("POST", "/v1/completions", body)
    assert status == 200 and again["choices"][0]["text"] == first["choices"][0]["text"]
