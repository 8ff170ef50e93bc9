"""Every bad request gets its HTTP status and an OpenAI-style JSON error body
({"error": {"message", "type", "param", "code"}}), and the server keeps
serving afterwards."""
from pathlib import Path

import openai
import pytest

GOOD = {"model": "tiny", "prompt": "hello", "max_tokens": 3, "temperature": 0}
CHAT = {"model": "tiny", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 3}
TOO_LONG = "ab " * 5000  # about 10,000 tokens; the tiny model's context is 4096

CASES = [
    # (id, method, path, body, status, param)
    ("malformed_json", "POST", "/v1/completions", b'{"prompt": "x",', 400, None),
    ("not_an_object", "POST", "/v1/completions", b"[1, 2]", 400, None),
    ("empty_body", "POST", "/v1/chat/completions", b"", 400, None),
    ("prompt_missing", "POST", "/v1/completions", {"model": "tiny"}, 400, "prompt"),
    ("prompt_wrong_type", "POST", "/v1/completions", {**GOOD, "prompt": {"a": 1}}, 400, "prompt"),
    ("temperature_string", "POST", "/v1/completions", {**GOOD, "temperature": "hot"}, 400, "temperature"),
    ("temperature_negative", "POST", "/v1/completions", {**GOOD, "temperature": -1}, 400, "temperature"),
    ("top_p_too_big", "POST", "/v1/completions", {**GOOD, "top_p": 1.5}, 400, "top_p"),
    ("top_k_float", "POST", "/v1/completions", {**GOOD, "top_k": 2.5}, 400, "top_k"),
    ("seed_string", "POST", "/v1/completions", {**GOOD, "seed": "7"}, 400, "seed"),
    ("stream_string", "POST", "/v1/completions", {**GOOD, "stream": "yes"}, 400, "stream"),
    ("stop_number", "POST", "/v1/completions", {**GOOD, "stop": 5}, 400, "stop"),
    ("max_tokens_zero", "POST", "/v1/completions", {**GOOD, "max_tokens": 0}, 400, "max_tokens"),
    ("max_tokens_negative", "POST", "/v1/chat/completions", {**CHAT, "max_tokens": -4}, 400, "max_tokens"),
    ("max_tokens_string", "POST", "/v1/completions", {**GOOD, "max_tokens": "8"}, 400, "max_tokens"),
    ("max_tokens_beyond_context", "POST", "/v1/completions", {**GOOD, "max_tokens": 5000}, 400, "max_tokens"),
    ("prompt_longer_than_context", "POST", "/v1/completions", {**GOOD, "prompt": TOO_LONG}, 400, "prompt"),
    ("chat_longer_than_context", "POST", "/v1/chat/completions",
     {**CHAT, "messages": [{"role": "user", "content": TOO_LONG}]}, 400, "messages"),
    ("token_outside_vocab", "POST", "/v1/completions", {**GOOD, "prompt": [1, 2, 99999]}, 400, "prompt"),
    ("messages_empty", "POST", "/v1/chat/completions", {**CHAT, "messages": []}, 400, "messages"),
    ("messages_missing", "POST", "/v1/chat/completions", {"model": "tiny"}, 400, "messages"),
    ("messages_not_objects", "POST", "/v1/chat/completions", {**CHAT, "messages": ["hi"]}, 400, "messages"),
    ("unknown_role", "POST", "/v1/chat/completions",
     {**CHAT, "messages": [{"role": "wizard", "content": "hi"}]}, 400, "messages"),
    ("content_wrong_type", "POST", "/v1/chat/completions",
     {**CHAT, "messages": [{"role": "user", "content": 42}]}, 400, "messages"),
    ("n_zero", "POST", "/v1/completions", {**GOOD, "n": 0}, 400, "n"),
    ("n_above_16", "POST", "/v1/completions", {**GOOD, "n": 17}, 400, "n"),
    ("logprobs_above_20", "POST", "/v1/completions", {**GOOD, "logprobs": 21}, 400, "logprobs"),
    ("unknown_route", "GET", "/v1/engines", None, 404, None),
    ("unknown_post_route", "POST", "/v1/embeddings", {"input": "x"}, 404, None),
    ("wrong_method", "GET", "/v1/completions", None, 404, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_request_gets_status_and_json_error(server, case):
    _, method, path, body, status, param = case
    got, _, reply = server.request(method, path, body)
    assert got == status, reply
    err = reply["error"]
    assert isinstance(err["message"], str) and err["message"], reply
    assert err["type"] in ("invalid_request_error", "not_found_error")
    if param:
        assert err["param"] == param, reply


def test_server_keeps_serving_after_bad_requests(server):
    for _, method, path, body, _, _ in CASES:
        server.request(method, path, body)
    status, _, reply = server.request("POST", "/v1/completions", GOOD)
    assert status == 200 and reply["usage"]["completion_tokens"] == 3
    status, _, reply = server.request("POST", "/v1/chat/completions", CHAT)
    assert status == 200 and reply["choices"][0]["message"]["role"] == "assistant"


def test_openai_client_raises_bad_request(server):
    client = server.client()
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model="tiny", messages=[], max_tokens=3)
    assert e.value.status_code == 400 and "messages" in str(e.value)
    with pytest.raises(openai.BadRequestError, match="context"):
        client.completions.create(model="tiny", prompt="hi", max_tokens=10**6)
    with pytest.raises(openai.NotFoundError):
        client.embeddings.create(model="tiny", input="x")


REGRESSIONS = Path(__file__).resolve().parents[1] / "fuzz" / "regressions" / "fuzz_openai_request"


@pytest.mark.parametrize("case", sorted(p.name for p in REGRESSIONS.iterdir()))
def test_fuzz_findings_get_a_clean_400(server, case):
    """Inputs fuzz_openai_request found escaping the parser (byte 0 picks the
    route, as in the harness): each must now be a JSON 400."""
    data = (REGRESSIONS / case).read_bytes()
    path = "/v1/chat/completions" if data[0] & 1 else "/v1/completions"
    status, _, reply = server.request("POST", path, data[1:])
    assert status == 400 and "error" in reply, (status, reply)


def test_deeply_nested_bodies_are_refused_not_crashed_on(server):
    """A body nested 300,000 deep overflowed the stack of the JSON library
    (its parser and printer recurse per level): one request killed the server."""
    deep = '{"prompt": "x", "max_tokens": ' + "[" * 300_000 + "1" + "]" * 300_000 + "}"
    status, _, reply = server.request("POST", "/v1/completions", deep.encode())
    assert status == 400 and "nests" in reply["error"]["message"], reply
    assert server.health()["status"] == "ok"


@pytest.mark.parametrize("extra", [{}, {"logprobs": 2}])
def test_logits_that_overflow_end_the_request_not_the_server(server, extra):
    """A repeat penalty of 1e-45 divides positive logits into +infinity: no
    distribution is left. The GPU sampler read before its list there and
    crashed the process (found by an audit); now that request fails with a
    clear 500 (CPU sampling, with logprobs, too) and the server serves on."""
    body = {"model": "tiny", "prompt": "Once upon a time", "max_tokens": 8, "temperature": 0.8, "seed": 1,
            "repeat_penalty": 1e-45, "ignore_eos": True, **extra}
    status, _, reply = server.request("POST", "/v1/completions", body)
    assert status == 500 and "no token to draw" in reply["error"]["message"], reply
    status, _, reply = server.request("POST", "/v1/completions", {"model": "tiny", "prompt": "hi", "max_tokens": 2})
    assert status == 200
