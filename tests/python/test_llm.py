"""The built-in SmolLM2 through wgrt.load(): tokenizer, forward logits and a
greedy 8-token stream against the independent numpy reference
(tests/reference/llama_numpy.py, the same GGUF weights in fp32). Logit
tolerance 1e-3 absolute, as in tests/e2e (measured 3.8e-5 there)."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import wgrt

ROOT = Path(__file__).resolve().parents[2]
PROMPT_TEXT = "The capital of France is"
PROMPT = [504, 3575, 282, 4649, 314]  # as SmolLM2's tokenizer encodes PROMPT_TEXT
N = 8


@pytest.fixture(scope="module")
def llm():
    return wgrt.load(context=256, chunk=64)


@pytest.fixture(scope="module")
def reference():
    sys.path.insert(0, str(ROOT / "tests" / "reference"))
    import llama_numpy
    model = llama_numpy.load_model(wgrt.default_model_path())
    ids, logits = llama_numpy.greedy(model, PROMPT, N, return_logits=True)
    return ids, logits[-1]  # the logits after the last prompt token


def test_tokenizer_round_trip(llm):
    assert isinstance(llm, wgrt.LLM)
    assert llm.encode(PROMPT_TEXT) == PROMPT
    assert llm.decode(PROMPT) == PROMPT_TEXT


def test_forward_logits_match_reference(llm, reference):
    llm.reset()
    logits = llm.forward(PROMPT)
    assert logits.shape == (llm.vocab_size,) and logits.dtype == np.float32
    assert float(np.abs(logits - reference[1]).max()) < 1e-3
    llm.reset()


def test_greedy_stream_matches_reference(llm, reference):
    stream = llm.generate(PROMPT_TEXT, max_tokens=N, temperature=0, ignore_eos=True)
    pieces = list(stream)
    assert stream.tokens == list(reference[0])
    assert "".join(pieces) == llm.decode(stream.tokens)
    assert "Paris" in "".join(pieces)
    stats = llm.memory_stats()
    assert stats["constant_bytes"] > 0 and stats["total_bytes"] >= stats["constant_bytes"]


def test_gpu_sampling_repeats_across_steps_in_flight(llm):
    # Sampled (not greedy) on the GPU: the same seed gives the same tokens
    # whether Python waits for each token or 6 steps are queued ahead.
    kwargs = dict(max_tokens=6, temperature=0.9, top_k=20, seed=5, ignore_eos=True)
    one = llm.generate(PROMPT_TEXT, in_flight=1, **kwargs)
    "".join(one)
    six = llm.generate(PROMPT_TEXT, in_flight=6, **kwargs)
    "".join(six)
    assert len(one.tokens) == 6 and one.tokens == six.tokens
    assert six.stats["generated_tokens"] == 6


def test_bad_sampling_options_are_clear_errors(llm):
    with pytest.raises(wgrt.Error, match="top-k"):
        llm.generate(PROMPT_TEXT, top_k=llm.vocab_size + 1)
    with pytest.raises(wgrt.Error, match="in flight"):
        llm.generate(PROMPT_TEXT, in_flight=0)


def test_next_turn_reuses_the_cached_prefix(llm):
    """generate() keeps the part of the KV cache its prompt repeats (issue
    33's prompt cache): the follow-up runs only its new text and gives what a
    run from an empty cache gives."""
    greedy = dict(max_tokens=6, temperature=0, ignore_eos=True)
    first = llm.generate(PROMPT_TEXT, **greedy)
    follow_up = PROMPT_TEXT + "".join(first) + ". The capital of Spain is"
    warm = llm.generate(follow_up, **greedy)
    warm_text = "".join(warm)
    cold = llm.generate(follow_up, cache_prompt=False, **greedy)
    assert warm_text == "".join(cold) and len(warm_text) > 0
    assert warm.stats["prompt_tokens"] == cold.stats["prompt_tokens"]
    assert len(PROMPT) <= warm.stats["cached_tokens"] < warm.stats["prompt_tokens"]
    assert cold.stats["cached_tokens"] == 0


def test_logprobs_penalties_and_biases(llm, reference):
    """logprobs=k gives each token's log-probability and the k likeliest, here
    against the numpy reference's logits after the prompt; a logit bias of
    +100 forces a token; the penalties change a greedy run."""
    greedy = dict(max_tokens=4, temperature=0, ignore_eos=True, cache_prompt=False)
    gen = llm.generate(PROMPT_TEXT, logprobs=3, **greedy)
    "".join(gen)
    assert len(gen.logprobs) == len(gen.tokens) == 4
    _, ref_logits = reference
    ref = ref_logits.astype(np.float64)
    ref = ref - ref.max() - np.log(np.exp(ref - ref.max()).sum())  # log-softmax of the first step
    first, top = gen.logprobs[0]
    assert [t for t, _ in top] == list(np.argsort(-ref)[:3]) and top[0][0] == gen.tokens[0]
    assert first == pytest.approx(ref.max(), abs=1e-3)  # the e2e logit tolerance
    forced = llm.generate(PROMPT_TEXT, logit_bias={42: 100.0}, **greedy)
    "".join(forced)
    assert forced.tokens == [42] * 4
    plain = llm.generate(PROMPT_TEXT, max_tokens=12, temperature=0, ignore_eos=True)
    "".join(plain)
    penalised = llm.generate(PROMPT_TEXT, max_tokens=12, temperature=0, ignore_eos=True, frequency_penalty=2.0,
                             presence_penalty=1.0)
    "".join(penalised)
    assert penalised.tokens != plain.tokens


def test_json_schema_constrains_the_text(llm):
    """json_schema (a dict) holds the text to the schema; a keyword outside
    wgrt's subset is refused naming it (the server's tests cover the subset)."""
    schema = {"type": "object", "properties": {"city": {"enum": ["Paris", "Lyon"]}, "rank": {"type": "integer"}},
              "required": ["city", "rank"], "additionalProperties": False}
    gen = llm.generate("The capital of France, as JSON:", max_tokens=24, temperature=0, json_schema=schema)
    reply = json.loads("".join(gen))
    assert set(reply) == {"city", "rank"} and reply["city"] in ("Paris", "Lyon") and isinstance(reply["rank"], int)
    with pytest.raises(wgrt.Error, match="pattern"):
        "".join(llm.generate("x", json_schema={"type": "object", "properties": {"a": {"type": "string",
                                                                                       "pattern": "b"}}}))


def test_a_grammar_constrains_the_text(llm):
    """grammar (GBNF) holds sampled text to the grammar's sentences; a bad
    grammar is refused naming the line and column."""
    for seed in (1, 2):
        text = "".join(llm.generate("Answer:", max_tokens=16, temperature=1.0, seed=seed,
                                    grammar='root ::= ("yes" | "no") "." '))
        assert text in ("yes.", "no."), text
    with pytest.raises(wgrt.Error, match="line 1, column 10: rule 'answer' is used but not defined"):
        "".join(llm.generate("x", grammar="root ::= answer"))


def test_generate_batch_rows_equal_their_text_alone():
    """Continuous batching from Python: three prompts, two at a time (the third
    starts as a slot frees), each greedy text equal to its text alone; bad
    lists are refused naming the row."""
    batched = wgrt.load(context=128, chunk=16, parallel=2)
    assert batched.parallel == 2
    prompts = [PROMPT_TEXT, "Once upon a time", "The three primary colours are"]
    rows = batched.generate_batch(prompts, max_tokens=6, temperature=0, ignore_eos=True)
    assert [r["generated_tokens"] for r in rows] == [6, 6, 6]
    alone = wgrt.load(context=128, chunk=16)
    for p, r in zip(prompts, rows):
        want = "".join(alone.generate(p, max_tokens=6, temperature=0, ignore_eos=True, cache_prompt=False))
        assert r["text"] == want, (p, r["text"], want)
    with pytest.raises(Exception, match="no prompts"):
        batched.generate_batch([])
    with pytest.raises(TypeError, match="prompt 1"):
        batched.generate_batch(["fine", 7])
    with pytest.raises(Exception, match="prompt 0.*longer than the context"):
        batched.generate_batch(["word " * 400])


def test_a_pte_llama_loads_as_an_llm_with_a_gguf_tokenizer():
    """ExecuTorch's Llama export (tests/fixtures/llama/tiny_llama.pte, -qmode
    4w) loaded as an LLM: the prompt's and each decode step's logits against
    eager torch (the fixture's goldens, 1e-4 as in tests/runtime), run in the
    GGUF kernels the load-time passes move it into."""
    fix = ROOT / "tests" / "fixtures" / "llama"
    manifest = json.loads((fix / "tiny_llama.json").read_text())
    model = wgrt.load(fix / "tiny_llama.pte", tokenizer=fix / "byte_tokenizer.gguf", context=32, chunk=8)
    assert isinstance(model, wgrt.LLM)
    for step in manifest["steps"]:
        tokens = np.load(fix / step["inputs"][0]["file"])[0].tolist()
        want = np.load(fix / step["logits"]["file"])[0]
        assert float(np.abs(model.forward(tokens) - want).max()) <= 1e-4, step["kind"]
    with pytest.raises(ValueError, match="tokenizer is for a .pte"):
        wgrt.load(tokenizer=fix / "byte_tokenizer.gguf")


def test_adapters_are_listed_and_devices_are_checked(tmp_path):
    """wgrt.adapters() numbers the adapters as load(devices=...) takes them;
    one index loads the model there, a repeated one is refused by name, and
    a .pte refuses the option (it is one graph on one GPU)."""
    adapters = wgrt.adapters()
    assert adapters and all(a["name"] and a["backend"] for a in adapters), adapters
    sys.path.insert(0, str(ROOT / "tests" / "support"))
    from tiny_gguf import write_tiny_llama
    path = write_tiny_llama(tmp_path / "tiny.gguf", layers=2)
    model = wgrt.load(str(path), context=64, devices=[0])
    assert len(model.forward([1, 2, 3])) == model.vocab_size
    with pytest.raises(wgrt.Error, match="adapter 0 is named twice"):
        wgrt.load(str(path), context=64, devices=[0, 0])
    with pytest.raises(ValueError, match="devices is for .gguf models"):
        wgrt.load(str(tmp_path / "x.pte"), devices=[0])
