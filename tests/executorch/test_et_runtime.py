"""Programs run by ExecuTorch's own runtime, with wgrt as its VulkanBackend:
partially delegated ones against torch eager, fully delegated ones against
wgrt's own .pte path, the export_llama fixture step by step, and bad input."""
import numpy as np
import pytest

from et_fixtures import LLAMA_DIR, PARTIAL_DIR, PTE_DIR, import_or_skip, load_case_arrays, manifest, program_summary

torch = import_or_skip("torch")

PARTIAL = sorted(p.stem for p in PARTIAL_DIR.glob("*.json") if not p.stem.startswith("unsupported_"))
FULL = sorted(p.stem for p in PTE_DIR.glob("*.json")
              if all(not m["cpu_kernels"] for m in manifest(p)["methods"].values()))


def load(runtime, folder, name):
    info = manifest(folder / f"{name}.json")
    ptd = {"data_path": str(folder / info["ptd"][0])} if info["ptd"] else {}
    return info, runtime.load_program(str(folder / info["pte"]), **ptd)


def run(method, arrays):
    return [o.numpy() for o in method.execute([torch.from_numpy(a) for a in arrays])]


def test_fixture_sets_are_there():
    assert len(PARTIAL) >= 6, PARTIAL
    assert len(FULL) >= 10, FULL


def test_backend_is_registered(runtime):
    assert "VulkanBackend" in runtime.backend_registry.registered_backend_names


@pytest.mark.parametrize("name", PARTIAL)
def test_partially_delegated_matches_torch(runtime, name):
    info, program = load(runtime, PARTIAL_DIR, name)
    summary = program_summary(PARTIAL_DIR / info["pte"])
    tol = info["tolerance"]
    for method_name, m in info["methods"].items():
        kernels, backends = summary[method_name]
        # The premise: ExecuTorch's CPU kernels and wgrt both have work here.
        assert kernels, f"{name}.{method_name} has no CPU kernels"
        assert "VulkanBackend" in backends, f"{name}.{method_name} has no VulkanBackend delegate"
        method = program.load_method(method_name)  # one method object for every case
        for case in m["cases"]:
            outputs = run(method, load_case_arrays(PARTIAL_DIR, case["inputs"]))
            expected = load_case_arrays(PARTIAL_DIR, case["outputs"])
            assert len(outputs) == len(expected)
            for got, want in zip(outputs, expected):
                assert got.shape == want.shape and got.dtype == want.dtype
                np.testing.assert_allclose(got, want, atol=tol["atol"], rtol=tol["rtol"])


def test_partial_set_covers_the_issue(runtime):
    summaries = {n: program_summary(PARTIAL_DIR / manifest(PARTIAL_DIR / f"{n}.json")["pte"]) for n in PARTIAL}
    kernels = {n: {k for ks, _ in s.values() for k in ks} for n, s in summaries.items()}
    assert {"aten::erf", "aten::var", "aten::any"} <= {k.split(".")[0] for k in kernels["cpu_reductions"]}
    assert summaries["two_blobs"]["forward"][1].count("VulkanBackend") == 2
    assert len(summaries["two_methods_cpu"]) == 2
    assert manifest(PARTIAL_DIR / "ptd_cpu.json")["ptd"]
    assert any(i["dynamic"] for i in manifest(PARTIAL_DIR / "dynamic_cpu.json")["methods"]["forward"]["program_inputs"])


@pytest.mark.parametrize("name", FULL)
def test_fully_delegated_same_as_wgrt(runtime, name):
    import wgrt

    info, program = load(runtime, PTE_DIR, name)
    own = wgrt.load(str(PTE_DIR / info["pte"]), str(PTE_DIR / info["ptd"][0]) if info["ptd"] else None)
    tol = info["tolerance"]
    for method_name, m in info["methods"].items():
        assert summary_backends(PTE_DIR / info["pte"], method_name) == ["VulkanBackend"]
        method = program.load_method(method_name)
        for case in m["cases"]:
            inputs = load_case_arrays(PTE_DIR, case["inputs"])
            through_et = run(method, inputs)
            through_wgrt = own.method(method_name)(*inputs)
            for a, b, want in zip(through_et, through_wgrt, load_case_arrays(PTE_DIR, case["outputs"])):
                np.testing.assert_array_equal(a, b)  # the same kernels on the same device
                np.testing.assert_allclose(a, want, atol=tol["atol"], rtol=tol["rtol"])


def summary_backends(pte, method_name):
    kernels, backends = program_summary(pte)[method_name]
    assert not kernels
    return backends


def test_export_llama_greedy_tokens(runtime):
    info = manifest(LLAMA_DIR / "tiny_llama.json")
    assert summary_backends(LLAMA_DIR / info["pte"], "forward") == ["VulkanBackend"]
    forward = runtime.load_program(str(LLAMA_DIR / info["pte"])).load_method("forward")
    tol = info["tolerance"]
    steps = info["steps"]
    assert [s["kind"] for s in steps] == ["prefill"] + ["decode"] * 4
    for i, step in enumerate(steps):
        tokens, pos = load_case_arrays(LLAMA_DIR, step["inputs"])
        (logits,) = run(forward, [tokens, pos])
        want = np.load(LLAMA_DIR / step["logits"]["file"])
        np.testing.assert_allclose(logits, want, atol=tol["atol"], rtol=tol["rtol"])
        # Greedy: the next step feeds eager torch's argmax; ours must agree.
        token = int(np.argmax(logits[0]))
        assert token == int(np.argmax(want[0]))
        if i + 1 < len(steps):
            assert token == int(np.load(LLAMA_DIR / steps[i + 1]["inputs"][0]["file"])[0, -1])


def test_kv_cache_lives_in_the_delegate(runtime):
    """A decode step gives the golden logits only after the prefill ran on the
    same method: the cache persisted inside the delegate between calls."""
    info = manifest(LLAMA_DIR / "tiny_llama.json")
    step1 = info["steps"][1]
    tokens, pos = load_case_arrays(LLAMA_DIR, step1["inputs"])
    fresh = runtime.load_program(str(LLAMA_DIR / info["pte"])).load_method("forward")
    (logits,) = run(fresh, [tokens, pos])
    assert np.abs(logits - np.load(LLAMA_DIR / step1["logits"]["file"])).max() > 1e-3


def test_one_device_shared_with_wgrt(runtime):
    from wgrt import _wgrt

    before = _wgrt._testing.live_device_bytes()
    _, program = load(runtime, PARTIAL_DIR, "encoder")
    method = program.load_method("forward")  # uploads the blobs' constants
    assert _wgrt._testing.live_device_bytes() > before
    del method


def byte_level_tokenizer_json(path):
    """A Hugging Face tokenizer.json for the fixture's 256-token byte vocabulary
    (GPT-2's byte-to-unicode map, no merges), which the LLM runner can read."""
    import json

    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 256))
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    path.write_text(json.dumps({
        "version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": byte_level,
        "post_processor": None, "decoder": byte_level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                  "vocab": {chars[b]: b for b in range(256)}, "merges": []}}))


def test_llm_runner_generates_on_wgrt(runtime, tmp_path):
    """executorch's own TextLLMRunner drives the export_llama program (prefill,
    then decode steps) with every step on wgrt. Only that it runs is checked
    here: its Python token callback turns each token into str, which fails on
    this random model's non-UTF-8 bytes, so the tokens themselves are checked
    by test_export_llama_greedy_tokens instead."""
    from executorch.extension.llm.runner import GenerationConfig, TextLLMRunner

    tokenizer = tmp_path / "tokenizer.json"
    byte_level_tokenizer_json(tokenizer)
    runner = TextLLMRunner(str(LLAMA_DIR / "tiny_llama.pte"), str(tokenizer))
    stats = []
    runner.generate("hello!", GenerationConfig(max_new_tokens=4, temperature=0.0, echo=False),
                    stats_callback=stats.append)
    assert stats[-1].num_prompt_tokens == 6
    assert stats[-1].num_generated_tokens == 3  # the fourth new token comes from the prefill
