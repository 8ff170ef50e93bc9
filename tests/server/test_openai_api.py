"""`wgrt serve` through the official `openai` client on the tiny random model:
completions and chat completions, streamed and not, give exactly the text
`wgrt generate` prints for the same prompt and settings (greedy and seeded
sampling), with usage counts, finish reasons and stop strings."""
import numpy as np
import re

import pytest

from serve_harness import wgrt_generate

PROMPT = "Once upon a time"
SAMPLING = dict(temperature=0.9, top_p=0.9, extra_body={"top_k": 20, "min_p": 0.02})
SAMPLING_FLAGS = ["--temp", "0.9", "--top-p", "0.9", "--top-k", "20", "--min-p", "0.02"]


def complete(client, stream=False, **kw):
    """(text, finish_reason, usage) of a completion, streamed or not."""
    if not stream:
        r = client.completions.create(model="tiny", prompt=kw.pop("prompt", PROMPT), **kw)
        assert len(r.choices) == 1 and r.object == "text_completion" and r.id.startswith("cmpl-")
        return r.choices[0].text, r.choices[0].finish_reason, r.usage
    chunks = list(client.completions.create(model="tiny", prompt=kw.pop("prompt", PROMPT), stream=True,
                                            stream_options={"include_usage": True}, **kw))
    assert len({c.id for c in chunks}) == 1
    text = "".join(c.choices[0].text for c in chunks if c.choices)
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert all(f is None for f in finishes[:-1])
    assert chunks[-1].choices == [] and chunks[-1].usage is not None  # include_usage's last chunk
    return text, finishes[-1], chunks[-1].usage


def chat(client, messages, stream=False, **kw):
    if not stream:
        r = client.chat.completions.create(model="tiny", messages=messages, **kw)
        assert r.object == "chat.completion" and r.choices[0].message.role == "assistant"
        return r.choices[0].message.content, r.choices[0].finish_reason, r.usage
    chunks = list(client.chat.completions.create(model="tiny", messages=messages, stream=True,
                                                 stream_options={"include_usage": True}, **kw))
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    return text, finishes[-1], chunks[-1].usage


def test_models_and_health(server, tiny_model):
    models = server.client().models.list().data
    assert [m.id for m in models] == [tiny_model.name]
    h = server.health()
    assert h["status"] == "ok" and h["model"] == tiny_model.name and h["running"] == 0


@pytest.mark.parametrize("stream", [False, True])
def test_greedy_completion_equals_wgrt_generate(server, tiny_model, stream):
    want = wgrt_generate(tiny_model, PROMPT, "-n", "24", "--temp", "0", "--ignore-eos")
    text, finish, usage = complete(server.client(), stream, max_tokens=24, temperature=0,
                                   extra_body={"ignore_eos": True})
    assert text == want and len(want) > 0
    assert finish == "length"
    # "Once upon a time" in the tiny vocabulary: O n c e | Ġ u p on | Ġa | Ġt i m e (the merges are
    # two-letter pairs from fixed sets, see tests/support/tiny_gguf.py).
    assert usage.completion_tokens == 24 and usage.prompt_tokens == 13
    assert usage.total_tokens == 37


@pytest.mark.parametrize("stream", [False, True])
def test_seeded_sampling_equals_wgrt_generate_and_repeats(server, tiny_model, stream):
    want = wgrt_generate(tiny_model, PROMPT, "-n", "20", "--seed", "11", "--ignore-eos", *SAMPLING_FLAGS)
    client = server.client()
    runs = [complete(client, stream, max_tokens=20, seed=11, **{**SAMPLING, "extra_body": {
        **SAMPLING["extra_body"], "ignore_eos": True}})[0] for _ in range(2)]
    assert runs == [want, want]
    other = complete(client, stream, max_tokens=20, seed=12, **{**SAMPLING, "extra_body": {
        **SAMPLING["extra_body"], "ignore_eos": True}})[0]
    assert other != want  # the seed matters (20 sampled tokens from a spread-out distribution)


@pytest.mark.parametrize("stream", [False, True])
def test_n_choices_are_sequences_with_seeds_seed_plus_index(server, tiny_model, stream):
    """n = 3: choice i is what `wgrt generate --seed 11+i` prints (the three
    run as sequences of one batch); usage counts the prompt once and every
    choice's tokens."""
    want = [wgrt_generate(tiny_model, PROMPT, "-n", "12", "--seed", str(11 + i), "--ignore-eos", *SAMPLING_FLAGS)
            for i in range(3)]
    assert len(set(want)) == 3
    kw = dict(model="tiny", prompt=PROMPT, max_tokens=12, seed=11, n=3,
              **{**SAMPLING, "extra_body": {**SAMPLING["extra_body"], "ignore_eos": True}})
    client = server.client()
    if not stream:
        r = client.completions.create(**kw)
        assert [c.index for c in r.choices] == [0, 1, 2]
        assert [c.text for c in r.choices] == want
        assert all(c.finish_reason == "length" for c in r.choices)
        usage = r.usage
    else:
        chunks = list(client.completions.create(stream=True, stream_options={"include_usage": True}, **kw))
        texts, finishes = ["", "", ""], [None, None, None]
        for c in chunks:
            for ch in c.choices:
                texts[ch.index] += ch.text
                finishes[ch.index] = ch.finish_reason or finishes[ch.index]
        assert texts == want and finishes == ["length"] * 3
        usage = chunks[-1].usage
    assert usage.completion_tokens == 36 and usage.prompt_tokens == 13 and usage.total_tokens == 49


def test_n_chat_choices_stream_each_with_its_role(server):
    chunks = list(server.client().chat.completions.create(
        model="tiny", messages=[{"role": "user", "content": "hi"}], max_tokens=4, n=2, temperature=0, stream=True,
        extra_body={"ignore_eos": True}))
    roles = [ch.index for c in chunks for ch in c.choices if ch.delta.role == "assistant"]
    assert roles == [0, 1]
    texts = ["", ""]
    for c in chunks:
        for ch in c.choices:
            texts[ch.index] += ch.delta.content or ""
    assert texts[0] == texts[1] and texts[0]  # greedy: the same text twice


def test_temperature_zero_repeats_without_seed(server):
    client = server.client()
    assert len({complete(client, max_tokens=12, temperature=0)[0] for _ in range(3)}) == 1


@pytest.mark.parametrize("stream", [False, True])
def test_chat_equals_wgrt_generate_chat(server, tiny_model, stream):
    want = wgrt_generate(tiny_model, "Tell me a story", "--chat", "--system", "You are terse.", "-n", "16",
                         "--temp", "0", "--ignore-eos")
    messages = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Tell me a story"}]
    text, finish, usage = chat(server.client(), messages, stream, max_tokens=16, temperature=0,
                               extra_body={"ignore_eos": True})
    assert text == want and finish == "length" and usage.completion_tokens == 16


def test_chat_with_assistant_turn_and_seeded_sampling(server, tiny_model):
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
                {"role": "user", "content": "and then?"}]
    client = server.client()
    a = chat(client, messages, max_tokens=10, seed=5, **SAMPLING)
    b = chat(client, messages, stream=True, max_tokens=10, seed=5, **SAMPLING)
    assert a[0] == b[0] and a[2].prompt_tokens == b[2].prompt_tokens > 10


@pytest.mark.parametrize("stream", [False, True])
def test_stop_string_cuts_the_text(server, tiny_model, stream):
    full = wgrt_generate(tiny_model, PROMPT, "-n", "40", "--temp", "0", "--ignore-eos")
    stop = full[10:13]
    cut = full[:full.index(stop)]
    assert wgrt_generate(tiny_model, PROMPT, "-n", "40", "--temp", "0", "--ignore-eos", "--stop", stop) == cut
    text, finish, usage = complete(server.client(), stream, max_tokens=40, temperature=0, stop=[stop, "\x01never"],
                                   extra_body={"ignore_eos": True})
    assert text == cut and finish == "stop" and usage.completion_tokens < 40


def test_token_id_prompt(server):
    client = server.client()
    by_text = complete(client, max_tokens=8, temperature=0)
    ids_prompt = client.completions.create(model="tiny", prompt=[30, 40, 50, 60], max_tokens=8, temperature=0)
    assert ids_prompt.usage.prompt_tokens == 4 and ids_prompt.choices[0].text != by_text[0]


@pytest.mark.parametrize("stream", [False, True])
def test_chat_second_turn_reuses_the_cache_and_matches_a_cold_run(server, stream):
    """The prompt cache (issue 33): a chat's next turn repeats the conversation
    so far; only the new part runs, usage says how much was cached, and the
    text equals a run from an empty cache (cache_prompt: false)."""
    client = server.client()
    greedy = dict(max_tokens=12, temperature=0, extra_body={"ignore_eos": True})
    first = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Name a colour"}]
    reply, _, usage1 = chat(client, first, stream, **greedy)
    second = first + [{"role": "assistant", "content": reply}, {"role": "user", "content": "And another one?"}]
    warm_text, _, warm = chat(client, second, stream, **greedy)
    cold_text, _, cold = chat(client, second, stream, max_tokens=12, temperature=0,
                              extra_body={"ignore_eos": True, "cache_prompt": False})
    assert warm_text == cold_text and len(warm_text) > 0
    assert warm.prompt_tokens == cold.prompt_tokens > usage1.prompt_tokens
    # At least the first turn's prompt was cached; the cold run reused nothing.
    assert usage1.prompt_tokens <= warm.prompt_tokens_details.cached_tokens < warm.prompt_tokens
    assert cold.prompt_tokens_details.cached_tokens == 0
    # The same request again: all but its last token come from the cache.
    again_text, _, again = chat(client, second, stream, **greedy)
    assert again_text == cold_text and again.prompt_tokens_details.cached_tokens == again.prompt_tokens - 1


def _log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def _dumped_log_softmax(model, prompt, tmp_path, *args):
    """The log-softmax of the logits `wgrt generate --dump-logits` samples from
    in a greedy run ([steps, vocab], float64)."""
    dump = tmp_path / "logits.npy"
    wgrt_generate(model, prompt, "-n", "8", "--temp", "0", "--ignore-eos", "--dump-logits", str(dump), *args)
    return _log_softmax(np.load(dump).astype(np.float64))


# The server's logprobs come from the same logits through the CPU sampler; the
# two runs differ only in how the prompt reached the cache, so 1e-4 holds.
LOGPROB_TOL = 1e-4


@pytest.mark.parametrize("stream", [False, True])
def test_chat_logprobs_are_the_log_softmax_of_the_logits(server, tiny_model, tmp_path, stream):
    want = _dumped_log_softmax(tiny_model, "Tell me a story", tmp_path, "--chat", "--system", "You are terse.")
    messages = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Tell me a story"}]
    kw = dict(model="tiny", messages=messages, max_tokens=8, temperature=0, logprobs=True, top_logprobs=3,
              extra_body={"ignore_eos": True, "cache_prompt": False})
    client = server.client()
    if stream:
        chunks = list(client.chat.completions.create(stream=True, **kw))
        entries = [e for c in chunks if c.choices and c.choices[0].logprobs for e in c.choices[0].logprobs.content]
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    else:
        r = client.chat.completions.create(**kw)
        entries, text = r.choices[0].logprobs.content, r.choices[0].message.content
    assert len(entries) == 8 and "".join(e.token for e in entries) == text
    for step, e in enumerate(entries):
        top = np.sort(want[step])[::-1][:3]
        assert abs(e.logprob - top[0]) < LOGPROB_TOL  # greedy takes the likeliest token
        assert [t.logprob for t in e.top_logprobs] == pytest.approx(top, abs=LOGPROB_TOL)
        assert e.top_logprobs[0].token == e.token and e.bytes == list(e.token.encode())


def test_completion_logprobs_parallel_arrays(server, tiny_model, tmp_path):
    want = _dumped_log_softmax(tiny_model, PROMPT, tmp_path)
    r = server.client().completions.create(model="tiny", prompt=PROMPT, max_tokens=8, temperature=0, logprobs=2,
                                           extra_body={"ignore_eos": True, "cache_prompt": False})
    lp = r.choices[0].logprobs
    assert len(lp.tokens) == len(lp.token_logprobs) == len(lp.top_logprobs) == len(lp.text_offset) == 8
    assert "".join(lp.tokens) == r.choices[0].text
    assert lp.text_offset == [sum(len(t) for t in lp.tokens[:i]) for i in range(8)]
    for step in range(8):
        assert lp.token_logprobs[step] == pytest.approx(want[step].max(), abs=LOGPROB_TOL)
        assert sorted(lp.top_logprobs[step].values(), reverse=True) == pytest.approx(
            np.sort(want[step])[::-1][:2], abs=LOGPROB_TOL)


@pytest.mark.parametrize("body, param", [
    ({"logprobs": True, "top_logprobs": 21}, "top_logprobs"),
    ({"top_logprobs": 2}, "top_logprobs"),
    ({"logprobs": "yes"}, "logprobs"),
])
def test_bad_logprobs_requests_are_refused(server, body, param):
    status, _, answer = server.request("POST", "/v1/chat/completions",
                                    {"model": "tiny", "messages": [{"role": "user", "content": "hi"}], **body})
    assert status == 400 and answer["error"]["param"] == param, answer


def test_asking_for_logprobs_does_not_change_a_seeded_sample(server):
    """Logprobs sample on the CPU; the same seed draws the same tokens there as on the GPU."""
    client = server.client()
    kw = dict(model="tiny", prompt=PROMPT, max_tokens=12, seed=21, **{**SAMPLING, "extra_body": {
        **SAMPLING["extra_body"], "ignore_eos": True}})
    plain = client.completions.create(**kw).choices[0].text
    with_logprobs = client.completions.create(logprobs=1, **kw).choices[0]
    assert with_logprobs.text == plain and "".join(with_logprobs.logprobs.tokens) == plain


def test_presence_and_frequency_penalties_equal_wgrt_generate(server, tiny_model):
    want = wgrt_generate(tiny_model, PROMPT, "-n", "16", "--temp", "0", "--ignore-eos", "--presence-penalty", "1.5",
                         "--frequency-penalty", "0.8")
    plain = wgrt_generate(tiny_model, PROMPT, "-n", "16", "--temp", "0", "--ignore-eos")
    text, _, _ = complete(server.client(), max_tokens=16, temperature=0, presence_penalty=1.5, frequency_penalty=0.8,
                          extra_body={"ignore_eos": True})
    assert text == want and want != plain  # the penalties change this greedy run


def test_logit_bias_forces_and_forbids_tokens(server):
    client = server.client()
    greedy = dict(model="tiny", prompt=PROMPT, max_tokens=6, temperature=0, logprobs=0, extra_body={"ignore_eos": True})
    forced = client.completions.create(logit_bias={"40": 100}, **greedy).choices[0].logprobs.tokens
    assert len(forced) == 6 and len(set(forced)) == 1  # token 40, every step
    other = client.completions.create(logit_bias={"40": -100, "41": 100}, **greedy).choices[0].logprobs.tokens
    assert len(set(other)) == 1 and other[0] != forced[0]
    plain = client.completions.create(**greedy).choices[0].logprobs.tokens
    assert plain != forced and plain != other


@pytest.mark.parametrize("bias, needle", [
    ({"999999": 1}, "outside the vocabulary"),
    ({"abc": 1}, "not a token id"),
    ({"5": 101}, "[-100, 100]"),
])
def test_bad_logit_bias_is_refused(server, bias, needle):
    status, _, answer = server.request("POST", "/v1/completions", {"model": "tiny", "prompt": "hi", "logit_bias": bias})
    assert status == 400 and answer["error"]["param"] == "logit_bias" and needle in answer["error"]["message"], answer


def test_json_object_masks_what_cannot_continue_an_object(server):
    """On the tiny random model the object never closes within the budget, but
    the text is kept a JSON-object prefix (the matcher's own tests are in
    tests/llm/test_json_prefix.cpp; SmolLM2 completes one in test_smollm2.py)."""
    client = server.client()
    kw = dict(model="tiny", prompt=PROMPT, max_tokens=24, temperature=0)
    # The completions route is not in the openai client's signature for it: the field goes as extra body.
    free = client.completions.create(extra_body={"ignore_eos": True}, **kw).choices[0].text
    constrained = client.completions.create(
        extra_body={"ignore_eos": True, "response_format": {"type": "json_object"}}, **kw).choices[0]
    assert constrained.text.lstrip().startswith("{") and constrained.text != free
    assert constrained.finish_reason == "length"
    text = client.completions.create(extra_body={"ignore_eos": True, "response_format": {"type": "text"}}, **kw)
    assert text.choices[0].text == free


def test_a_gbnf_grammar_shapes_the_reply(server):
    """llama.cpp's `grammar` field: sampled replies of the tiny random model are
    sentences of the grammar, ended at the end-of-generation token once whole
    (the parser's and matcher's own tests are in tests/llm/test_grammar.cpp)."""
    grammar = 'root ::= ("yes" | "no") " " [0-9]{2}\n'
    for seed in (1, 2, 3):
        status, _, answer = server.request("POST", "/v1/completions", {
            "model": "tiny", "prompt": PROMPT, "max_tokens": 20, "temperature": 1.0, "seed": seed,
            "grammar": grammar})
        assert status == 200, answer
        choice = answer["choices"][0]
        assert re.fullmatch(r"(yes|no) [0-9]{2}", choice["text"]), choice
        assert choice["finish_reason"] == "stop", choice


@pytest.mark.parametrize("body, needle", [
    ({"grammar": "root ::= item\n"}, "line 1, column 10: rule 'item' is used but not defined"),
    ({"grammar": "root ::= expr\nexpr ::= expr \"+\" | \"1\"\n"}, "'expr' is left-recursive"),
    ({"grammar": 7}, "'grammar' must be a string of GBNF"),
    ({"grammar": "root ::= \"a\"", "response_format": {"type": "json_object"}}, "cannot both shape the reply"),
])
def test_bad_grammars_are_refused_naming_what_is_wrong(server, body, needle):
    status, _, answer = server.request("POST", "/v1/completions", {"model": "tiny", "prompt": "hi", **body})
    assert status == 400 and answer["error"]["param"] == "grammar" and needle in answer["error"]["message"], answer


@pytest.mark.parametrize("fmt", [{"type": "json_schema", "json_schema": {"schema": {}}}, {"type": "xml"}, {},
                                 "json_object"])
def test_unsupported_response_formats_are_refused(server, fmt):
    status, _, answer = server.request("POST", "/v1/completions",
                                       {"model": "tiny", "prompt": "hi", "response_format": fmt})
    assert status == 400 and answer["error"]["param"] == "response_format", answer
