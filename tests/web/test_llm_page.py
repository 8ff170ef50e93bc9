"""The default GGUF (SmolLM2-135M-Instruct Q4_1) in the page: greedy tokens
against native wgrt on the same weights, the chat template, cancellation,
and the errors a visitor can cause. SwiftShader has no shader-f16, so the
page runs the f32 paths; the native reference is asked for f32 GEMMs too
(WGRT_MATMUL=f32), so both sides round the same way and the greedy token ids
must be equal (tolerance: exact)."""
import os

import pytest

from web_site import serve

os.environ["WGRT_MATMUL"] = "f32"  # read when the native module creates its runtime
import wgrt  # noqa: E402  (after WGRT_MATMUL is set)

PROMPT = "The capital of France is"
N = 16


@pytest.fixture(scope="module")
def model_url(web_root):
    return serve(web_root, wgrt.default_model_path(), "smollm2.gguf")


def load(page, url):
    return page.evaluate("""async (url) => {
        window.model = await wgrt.loadModel(url, {context: 256});
        return window.model.info;
    }""", url)


def generate(page, prompt, options):
    """Tokens and text of one generation in the page, and its statistics."""
    return page.evaluate("""async ([prompt, options]) => {
        const steps = window.model.generate(prompt, options);
        const tokens = [];
        let text = '';
        for (let r = await steps.next(); ; r = await steps.next()) {
            if (r.done) return {tokens, text, stats: r.value};
            if (r.value.token >= 0) tokens.push(r.value.token);
            text += r.value.text;
        }
    }""", [prompt, options])


def test_greedy_tokens_match_native_wgrt(page, model_url):
    info = load(page, model_url)
    assert "llama" in info["description"].lower() or info["vocab"] == 49152
    got = generate(page, PROMPT, {"temperature": 0, "maxTokens": N, "ignoreEos": True})
    native = wgrt.load(context=256).generate(PROMPT, max_tokens=N, temperature=0, ignore_eos=True)
    text = "".join(native)
    assert got["tokens"] == native.tokens
    assert got["text"] == text
    assert got["stats"]["generated_tokens"] == N


def test_page_runs_without_shader_f16(page, model_url):
    # SwiftShader offers no shader-f16: the device comes up without it and
    # the model runs on the f32 kernels (the fail-open path).
    device = page.evaluate("wgrt.init()")
    assert device["f16"] is False, device
    load(page, model_url)
    assert generate(page, PROMPT, {"temperature": 0, "maxTokens": 4})["stats"]["generated_tokens"] >= 1


def test_chat_turn_through_the_models_template(page, model_url):
    load(page, model_url)
    prompt = page.evaluate("model.chatPrompt([{role: 'user', content: 'Hello!'}])")
    assert "<|im_start|>user\nHello!<|im_end|>" in prompt and prompt.endswith("<|im_start|>assistant\n")
    out = generate(page, prompt, {"temperature": 0, "maxTokens": 8})
    assert out["stats"]["prompt_tokens"] > 5 and out["text"]


def test_generation_cancelled_midway_and_the_model_goes_on(page, model_url):
    load(page, model_url)
    stopped = page.evaluate("""async (prompt) => {
        const abort = new AbortController();
        const steps = model.generate(prompt, {temperature: 0, maxTokens: 64, ignoreEos: true, signal: abort.signal});
        let n = 0;
        for (let r = await steps.next(); ; r = await steps.next()) {
            if (r.done) return {n, stats: r.value};
            if (++n == 3) abort.abort();
        }
    }""", PROMPT)
    assert stopped["stats"]["cancelled"] or stopped["n"] < 64, stopped
    assert stopped["n"] < 64
    again = generate(page, PROMPT, {"temperature": 0, "maxTokens": 4, "ignoreEos": True})
    assert again["stats"]["generated_tokens"] == 4


def test_damaged_gguf_is_an_error_and_the_page_keeps_working(page, model_url, web_root, tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(open(wgrt.default_model_path(), "rb").read(4096))
    url = serve(web_root, broken)
    message = page.evaluate("""async (url) => {
        try { await wgrt.loadModel(url); return 'loaded'; } catch (e) { return `${e.name}: ${e.message}`; }
    }""", url)
    # The importer's message (what is wrong, at which offset), as a WgrtError.
    assert message.startswith("WgrtError:") and "offset" in message.lower(), message
    load(page, model_url)  # the engine still works
    assert generate(page, PROMPT, {"temperature": 0, "maxTokens": 2})["stats"]["generated_tokens"] >= 1


def test_missing_url_is_an_error(page):
    message = page.evaluate("""async () => {
        try { await wgrt.loadModel('no_such_model.gguf'); return 'loaded'; } catch (e) { return e.message; }
    }""")
    assert "HTTP 404" in message, message


def test_bad_generation_option_is_refused(page, model_url):
    load(page, model_url)
    message = page.evaluate("""async () => {
        try { for await (const s of model.generate('x', {temprature: 0})) {} return 'ran'; }
        catch (e) { return e.message; }
    }""")
    assert "temprature" in message, message


def test_browser_without_webgpu_shows_a_message(browser, web_root):
    page = browser.new_page()
    page.add_init_script("delete Object.getPrototypeOf(navigator).gpu;")
    page.goto(f"{web_root[1]}/index.html")
    page.wait_for_function("!document.getElementById('device').textContent.startsWith('Starting')", timeout=30_000)
    assert page.text_content("#device") == "No WebGPU device."
    assert "WebGPU" in page.text_content("#error")
    page.close()
