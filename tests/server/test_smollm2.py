"""`wgrt serve` with no --model serves the built-in SmolLM2-135M-Instruct: a
greedy completion through the openai client equals `wgrt generate`'s text for
the same prompt and settings. (Chat, streaming and sampling are checked on the
tiny model, test_openai_api.py: SmolLM2 runs at 1-2 tokens/s on lavapipe.)"""
import json

import jsonschema
import pytest

from serve_harness import Server, wgrt_generate

N = 4


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



def test_json_object_response_format_gives_a_json_object(smollm2):
    """response_format json_object (issue 35): the reply is one JSON object,
    ended by the model (finish_reason stop), here with the fields asked for."""
    r = smollm2.client(timeout=300).chat.completions.create(
        model="SmolLM2", temperature=0, max_tokens=40, response_format={"type": "json_object"},
        messages=[{"role": "user", "content": "Give a JSON object with the keys name and age for a cat called Tom "
                                              "who is 3."}])
    assert r.choices[0].finish_reason == "stop", r.choices[0].message.content
    reply = json.loads(r.choices[0].message.content)
    assert isinstance(reply, dict) and reply.get("name") == "Tom", reply


def test_json_schema_response_format_follows_the_schema(smollm2):
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20},
                                               "age": {"type": "integer"}, "species": {"enum": ["cat", "dog"]}},
              "required": ["name", "age", "species"], "additionalProperties": False}
    r = smollm2.client(timeout=300).chat.completions.create(
        model="SmolLM2", temperature=0, max_tokens=40,
        response_format={"type": "json_schema", "json_schema": {"name": "pet", "schema": schema}},
        messages=[{"role": "user", "content": "Describe Tom, a 3-year-old cat, as JSON."}])
    assert r.choices[0].finish_reason == "stop", r.choices[0].message.content
    reply = json.loads(r.choices[0].message.content)
    jsonschema.validate(reply, schema)
    assert reply["species"] == "cat" and reply["age"] == 3, reply
