"""The Python side of tool calls (issue 35 item 1): LLM.apply_chat_template
with OpenAI-style messages and `tools`, LLM.parse_tool_calls and
tool_call_format, on the tiny random model carrying Qwen2.5's own chat
template (Hermes <tool_call> format; tests/fixtures/chat/real_qwen2_5.jinja).
What the template makes of tools is checked against the markers its Jinja
source writes; parsing of every family's format is tests/api/test_tool_calls.cpp."""
import json
import sys
from pathlib import Path

import pytest

import wgrt

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from tiny_gguf import write_tiny_llama  # noqa: E402

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


@pytest.fixture(scope="module")
def qwen(tmp_path_factory):
    template = (ROOT / "tests" / "fixtures" / "chat" / "real_qwen2_5.jinja").read_text()
    model = write_tiny_llama(tmp_path_factory.mktemp("model") / "tiny_qwen.gguf", chat_template=template)
    return wgrt.load(str(model), context=1024, chunk=64)


def test_the_format_comes_from_the_template(qwen):
    assert qwen.tool_call_format == "hermes"


def test_tools_and_a_tool_round_are_shown_as_the_template_shows_them(qwen):
    messages = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18 C, sunny"},
    ]
    text = qwen.apply_chat_template(messages, tools=TOOLS)
    assert "<tools>" in text and '"name": "get_weather"' in text  # the function list in the system turn
    # The assistant's call (the system turn's instructions show the format first).
    call = text[text.rindex("<tool_call>") + len("<tool_call>"):text.rindex("</tool_call>")]
    assert json.loads(call) == {"name": "get_weather", "arguments": {"city": "Paris"}}
    assert "<tool_response>\n18 C, sunny\n</tool_response>" in text
    assert text.endswith("<|im_start|>assistant\n")
    # Without tools, the same conversation has no function list; arguments may come as JSON text.
    messages[1]["tool_calls"][0]["function"]["arguments"] = '{"city": "Paris"}'
    plain = qwen.apply_chat_template(messages)
    assert "<tools>" not in plain and "<tool_call>" in plain
    assert qwen.apply_chat_template("Hi", system="Be brief.") == qwen.apply_chat_template(
        [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}])


def test_a_reply_is_split_into_text_and_calls(qwen):
    content, calls = qwen.parse_tool_calls(
        'Let me look.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>')
    assert content.strip() == "Let me look."
    assert len(calls) == 1 and calls[0]["type"] == "function" and calls[0]["id"].startswith("call_")
    assert calls[0]["function"]["name"] == "get_weather"
    assert json.loads(calls[0]["function"]["arguments"]) == {"city": "Oslo"}
    text, none = qwen.parse_tool_calls("<tool_call>not json</tool_call>")
    assert none == [] and "not json" in text


def test_bad_messages_and_tools_are_refused_by_name(qwen):
    with pytest.raises(TypeError, match="message 1"):
        qwen.apply_chat_template([{"role": "user", "content": "a"}, {"content": "no role"}])
    with pytest.raises(TypeError, match="tool_calls\\[0\\]"):
        qwen.apply_chat_template([{"role": "assistant", "tool_calls": [{"function": {}}]}])
    with pytest.raises(wgrt.Error, match="name"):
        qwen.apply_chat_template("Hi", tools=[{"type": "function", "function": {"description": "nameless"}}])


def test_generate_takes_messages_and_tools(qwen):
    stream = qwen.generate([{"role": "user", "content": "Weather in Paris?"}], tools=TOOLS, max_tokens=4,
                           temperature=0, ignore_eos=True)
    assert isinstance("".join(stream), str)
    prompt = qwen.apply_chat_template([{"role": "user", "content": "Weather in Paris?"}], tools=TOOLS)
    assert stream.stats["prompt_tokens"] == len(qwen.encode(prompt))


CITY = {"type": "string", "maxLength": 8}  # a random model ends a string only where it must
CALLABLE = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": CITY, "unit": {"enum": ["c", "f"]}},
        "required": ["city", "unit"], "additionalProperties": False}}},
    {"type": "function", "function": {"name": "set_alarm", "parameters": {
        "type": "object", "properties": {"hour": {"type": "integer"}, "label": CITY},
        "required": ["hour"], "additionalProperties": False}}},
]


def test_chat_with_a_required_call_gives_arguments_that_validate(qwen):
    import jsonschema
    params = {t["function"]["name"]: t["function"]["parameters"] for t in CALLABLE}
    ask = [{"role": "user", "content": "Weather in Paris?"}]
    for seed, choice, names in ((1, "required", set(params)), (2, "set_alarm", {"set_alarm"}),
                                (3, {"type": "function", "function": {"name": "get_weather"}}, {"get_weather"})):
        reply = qwen.chat(ask, tools=CALLABLE, tool_choice=choice, max_tokens=300, temperature=0.9, seed=seed)
        assert reply["finish_reason"] == "tool_calls", reply
        assert reply["tool_calls"] and reply["content"] is None, reply
        for call in reply["tool_calls"]:
            assert call["function"]["name"] in names
            jsonschema.validate(json.loads(call["function"]["arguments"]), params[call["function"]["name"]])
    with pytest.raises(wgrt.Error, match="no tool"):
        qwen.chat(ask, tools=CALLABLE, tool_choice="nowhere")
    with pytest.raises(ValueError, match="needs tools"):
        qwen.chat(ask, tool_choice="required")
    # "none": the tools are not shown, nothing is parsed as a call.
    none = qwen.chat(ask, tools=CALLABLE, tool_choice="none", max_tokens=4, temperature=0, ignore_eos=True)
    assert none["tool_calls"] == [] and none["finish_reason"] == "length"
