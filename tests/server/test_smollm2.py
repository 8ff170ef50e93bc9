"""`wgrt serve` with no --model serves the built-in SmolLM2-135M-Instruct: a
greedy completion and a chat completion through the openai client equal
`wgrt generate`'s text for the same prompt and settings."""
import pytest

from serve_harness import Server, wgrt_generate

N = 4  # lavapipe runs SmolLM2 at 1-2 tokens/s


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("smollm2") / "serve.log", "--ctx", "256")
    yield srv
    assert srv.stop() == 0, srv.log_text()


def test_completion_equals_wgrt_generate(smollm2):
    want = wgrt_generate(None, "The capital of France is", "-n", str(N), "--temp", "0", "--ctx", "256")
    r = smollm2.client(timeout=120).completions.create(model="SmolLM2", prompt="The capital of France is",
                                                        max_tokens=N, temperature=0)
    assert r.choices[0].text == want and "Paris" in want
    assert r.model == "SmolLM2-135M-Instruct.Q4_1.gguf" and r.usage.prompt_tokens == 5


def test_chat_equals_wgrt_generate_chat(smollm2):
    want = wgrt_generate(None, "What is the capital of France?", "--chat", "-n", str(N), "--temp", "0", "--ctx", "256")
    chunks = smollm2.client(timeout=120).chat.completions.create(
        model="SmolLM2", messages=[{"role": "user", "content": "What is the capital of France?"}],
        max_tokens=N, temperature=0, stream=True)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == want and len(want) > 0
