"""Tool calls (issue 35 item 1) through the `openai` client, on the tiny
random model carrying Qwen2.5's own chat template (Hermes <tool_call>
format; tests/fixtures/chat/real_qwen2_5.jinja). A random model never calls
a tool of its own accord, so the calls come from tool_choice "required" or a
named function: the reply is then constrained to the format's markers around
JSON of the functions' schemas, and every call's arguments must validate
(`jsonschema`, an independent validator). Parsing of replies in each
family's format from recorded text is tests/api/test_tool_calls.cpp."""
import json
from pathlib import Path

import jsonschema
import openai
import pytest

from serve_harness import Server
from tiny_gguf import write_tiny_llama

ROOT = Path(__file__).resolve().parents[2]
CITY = {"type": "string", "maxLength": 8}  # a random model ends a string only where it must
TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "The weather in a city",
        "parameters": {"type": "object", "properties": {"city": CITY, "unit": {"enum": ["c", "f"]},
                                                        "days": {"type": "integer"}},
                       "required": ["city", "unit"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "set_alarm", "description": "Sets an alarm",
        "parameters": {"type": "object", "properties": {"hour": {"type": "integer"}, "label": CITY,
                                                        "repeat": {"type": "boolean"}},
                       "required": ["hour"], "additionalProperties": False}}},
]
PARAMS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
ASK = [{"role": "user", "content": "What is the weather in Paris?"}]


@pytest.fixture(scope="module")
def qwen_server(tmp_path_factory):
    template = (ROOT / "tests" / "fixtures" / "chat" / "real_qwen2_5.jinja").read_text()
    model = write_tiny_llama(tmp_path_factory.mktemp("model") / "tiny_qwen.gguf", chat_template=template)
    srv = Server(tmp_path_factory.mktemp("serve") / "serve.log", "--model", str(model))
    yield srv
    assert srv.stop() == 0, srv.log_text()


def check_calls(message, names=None):
    assert message.tool_calls, message
    for call in message.tool_calls:
        assert call.type == "function"
        assert call.id.startswith("call_") and len(call.id) == 29, call.id
        assert call.function.name in PARAMS, call.function.name
        if names is not None:
            assert call.function.name in names
        jsonschema.validate(json.loads(call.function.arguments), PARAMS[call.function.name])


def test_required_gives_a_call_whose_arguments_validate(qwen_server):
    client = qwen_server.client(timeout=300)
    for seed in (1, 2, 3):
        r = client.chat.completions.create(model="tiny", messages=ASK, tools=TOOLS, tool_choice="required",
                                           max_tokens=400, temperature=0.9, seed=seed)
        choice = r.choices[0]
        assert choice.finish_reason == "tool_calls", choice
        check_calls(choice.message)
        assert choice.message.content is None


def test_a_named_function_is_the_one_called(qwen_server):
    client = qwen_server.client(timeout=300)
    r = client.chat.completions.create(model="tiny", messages=ASK, tools=TOOLS, max_tokens=400, seed=4,
                                       tool_choice={"type": "function", "function": {"name": "set_alarm"}})
    check_calls(r.choices[0].message, names={"set_alarm"})


def test_streamed_calls_come_as_delta_tool_calls(qwen_server):
    client = qwen_server.client(timeout=300)
    stream = client.chat.completions.create(model="tiny", messages=ASK, tools=TOOLS, tool_choice="required",
                                            max_tokens=400, seed=5, stream=True)
    calls, finish = {}, None
    for chunk in stream:
        for choice in chunk.choices:
            for d in choice.delta.tool_calls or []:
                calls.setdefault(d.index, {"id": d.id, "name": d.function.name, "arguments": ""})
                calls[d.index]["arguments"] += d.function.arguments or ""
            finish = choice.finish_reason or finish
    assert finish == "tool_calls"
    assert calls, "no delta.tool_calls"
    for c in calls.values():
        assert c["id"].startswith("call_")
        jsonschema.validate(json.loads(c["arguments"]), PARAMS[c["name"]])


def test_a_tool_result_is_taken_in_the_next_turn(qwen_server):
    client = qwen_server.client(timeout=300)
    first = client.chat.completions.create(model="tiny", messages=ASK, tools=TOOLS, tool_choice="required",
                                           max_tokens=400, seed=6)
    call = first.choices[0].message.tool_calls[0]
    turn = ASK + [{"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
                  {"role": "tool", "tool_call_id": call.id, "content": "{\"temperature\": 21}"}]
    second = client.chat.completions.create(model="tiny", messages=turn, tools=TOOLS, tool_choice="none",
                                            max_tokens=8, seed=6)
    assert second.choices[0].finish_reason in ("stop", "length")
    assert second.choices[0].message.tool_calls is None
    # The tool's result and the call are in the prompt: it grew past the first one's.
    assert second.usage.prompt_tokens > first.usage.prompt_tokens + 10, (first.usage, second.usage)


def test_auto_answers_with_text_or_calls(qwen_server):
    r = qwen_server.client(timeout=300).chat.completions.create(model="tiny", messages=ASK, tools=TOOLS,
                                                                max_tokens=16, seed=7)
    choice = r.choices[0]
    if choice.message.tool_calls:
        check_calls(choice.message)
    else:
        assert choice.finish_reason in ("stop", "length") and isinstance(choice.message.content, str)


@pytest.mark.parametrize("body, param, words", [
    ({"tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": "nope"}}}, "tool_choice", "no tool has"),
    ({"tools": [{"type": "function", "function": {"name": "bad name"}}]}, "tools", "may hold only"),
    ({"tools": [{"function": {"name": "a"}}, {"function": {"name": "a"}}]}, "tools", "repeated"),
    ({"tool_choice": "required"}, "tool_choice", "no 'tools'"),
    ({"tools": TOOLS, "tool_choice": "sometimes"}, "tool_choice", "must be"),
    ({"tools": [{"function": {"name": "f", "parameters": {"type": "object", "patternProperties": {}}}}],
      "tool_choice": "required"}, "tool_choice", "patternProperties"),
    ({"tools": TOOLS, "tool_choice": "required", "response_format": {"type": "json_object"}}, "tool_choice",
     "cannot both"),
])
def test_bad_tool_requests_are_refused_naming_the_field(qwen_server, body, param, words):
    status, _, reply = qwen_server.request("POST", "/v1/chat/completions", {"messages": ASK, "max_tokens": 4, **body})
    assert status == 400, reply
    assert reply["error"]["param"] == param, reply
    assert words in reply["error"]["message"], reply


def test_a_model_whose_template_shows_no_tools_refuses_them(server):
    """The default tiny model has no template (wgrt's built-in ChatML)."""
    status, _, reply = server.request("POST", "/v1/chat/completions",
                                      {"messages": ASK, "tools": TOOLS, "max_tokens": 4})
    assert status == 400, reply
    assert "shows no tools" in reply["error"]["message"] or "not run as Jinja" in reply["error"]["message"], reply
    status, _, reply = server.request("POST", "/v1/chat/completions",
                                      {"messages": ASK, "tools": TOOLS, "tool_choice": "none", "max_tokens": 2})
    assert status == 200, reply  # tool_choice none: it answers without them
