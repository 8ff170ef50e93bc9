"""response_format json_schema (issue 35): every reply validates against its
schema (checked with the `jsonschema` package, an independent validator).
The tiny random model follows only the mask, so every string here has a
maxLength and every object additionalProperties false: then the matcher
leaves it a finite path to the end, and each reply must end on its own
(finish_reason stop). Keywords outside the subset are refused by name."""
import json
import math

import jsonschema
import pytest

NAME = {"type": "string", "maxLength": 6}

SCHEMAS = {
    "flat": {"type": "object", "properties": {"name": NAME, "age": {"type": "integer"}, "ok": {"type": "boolean"}},
             "required": ["name", "age", "ok"], "additionalProperties": False},
    "enum_and_const": {"type": "object", "properties": {"color": {"enum": ["red", "green", "blue"]},
                                                        "kind": {"const": "cat"}, "n": {"enum": [1, 12, 123]}},
                       "required": ["color", "kind", "n"], "additionalProperties": False},
    "nested": {"type": "object", "properties": {"owner": {"type": "object", "properties": {"name": NAME, "pet": {
        "type": "object", "properties": {"species": {"enum": ["cat", "dog"]}, "legs": {"type": "integer"}},
        "required": ["species", "legs"], "additionalProperties": False}}, "required": ["name", "pet"],
        "additionalProperties": False}}, "required": ["owner"], "additionalProperties": False},
    "array_bounds": {"type": "object", "properties": {"tags": {"type": "array", "items": NAME, "minItems": 2,
                                                               "maxItems": 3}},
                     "required": ["tags"], "additionalProperties": False},
    "array_of_objects": {"type": "object", "properties": {"points": {"type": "array", "maxItems": 2, "items": {
        "type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"],
        "additionalProperties": False}}}, "required": ["points"], "additionalProperties": False},
    "any_of": {"type": "object", "properties": {"value": {"anyOf": [{"type": "integer"}, NAME, {"type": "null"}]}},
               "required": ["value"], "additionalProperties": False},
    "type_list": {"type": "object", "properties": {"maybe": {"type": ["boolean", "null"]}, "score": {
        "type": ["number", "string"], "maxLength": 4}}, "required": ["maybe", "score"], "additionalProperties": False},
    "refs": {"$defs": {"item": {"type": "object", "properties": {"id": {"type": "integer"}, "label": NAME},
                                "required": ["id", "label"], "additionalProperties": False}},
             "type": "object", "properties": {"first": {"$ref": "#/$defs/item"},
                                              "rest": {"type": "array", "items": {"$ref": "#/$defs/item"},
                                                       "maxItems": 2}},
             "required": ["first", "rest"], "additionalProperties": False},
    "optional_keys": {"type": "object", "properties": {"a": {"type": "integer"}, "b": NAME, "c": {"type": "boolean"}},
                      "required": ["a"], "additionalProperties": False},
    "one_of_objects": {"type": "object", "properties": {"shape": {"oneOf": [
        {"type": "object", "properties": {"circle": {"type": "number"}}, "required": ["circle"],
         "additionalProperties": False},
        {"type": "object", "properties": {"square": {"type": "integer"}}, "required": ["square"],
         "additionalProperties": False}]}}, "required": ["shape"], "additionalProperties": False},
}


def numbers(value):
    if isinstance(value, dict):
        return [x for v in value.values() for x in numbers(v)]
    if isinstance(value, list):
        return [x for v in value for x in numbers(v)]
    return [value] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


def structured(client, schema, seed, **kw):
    return client.completions.create(model="tiny", prompt="Once upon a time", max_tokens=1500, temperature=0.9,
                                     seed=seed, extra_body={"response_format": {
                                         "type": "json_schema", "json_schema": {"name": "t", "schema": schema}}}, **kw)


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_reply_validates(server, name):
    schema = SCHEMAS[name]
    client = server.client(timeout=300)
    for seed in (1, 2):
        choice = structured(client, schema, seed).choices[0]
        assert choice.finish_reason == "stop", choice.text
        reply = json.loads(choice.text)
        jsonschema.validate(reply, schema)  # raises on any violation
        assert all(math.isfinite(x) for x in numbers(reply)), choice.text  # exponents stay within a double


def test_a_reply_cut_short_says_length(server):
    choice = structured(server.client(), SCHEMAS["nested"], 1).choices[0]
    cut = server.client().completions.create(
        model="tiny", prompt="Once upon a time", max_tokens=5, temperature=0.9, seed=1,
        extra_body={"response_format": {"type": "json_schema", "json_schema": {"name": "t",
                                                                               "schema": SCHEMAS["nested"]}}})
    assert cut.choices[0].finish_reason == "length" and choice.text.startswith(cut.choices[0].text)


@pytest.mark.parametrize("schema, needle", [
    ({"type": "object", "properties": {"s": {"type": "string", "pattern": "^a"}}}, "'pattern'"),
    ({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}}, "'minimum'"),
    ({"type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}}, "names nothing"),
    ({"type": "string"}, "root must be an object or an array"),
    ({"type": "object", "required": ["x"], "properties": {}}, "not in properties"),
    ({"type": "object", "properties": {"a": {"type": "decimal"}}}, "not a JSON Schema type"),
])
def test_unsupported_schemas_are_refused_by_name(server, schema, needle):
    status, _, answer = server.request("POST", "/v1/completions", {
        "model": "tiny", "prompt": "hi",
        "response_format": {"type": "json_schema", "json_schema": {"name": "t", "schema": schema}}})
    assert status == 400 and answer["error"]["param"] == "response_format", answer
    assert needle in answer["error"]["message"], answer
