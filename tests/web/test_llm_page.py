"""The default GGUF (SmolLM2-135M-Instruct Q4_1) in the page: greedy tokens
against native wgrt on the same weights, the chat template, cancellation,
and the errors a visitor can cause.

The page runs under WebGPU's default limits (?limits=default: the test of
the spec's defaults in the browser) and SwiftShader has no shader-f16; the
native reference is asked for the same (WGRT_LIMITS=default: no optional
feature, so no subgroups, as in the page), for f32 GEMMs and for the GEMV's
block layout, the page's default. Both then run the same kernels, and the
greedy token ids must be equal (tolerance: exact). SwiftShader decodes a
token in ~12 s here, so the model is loaded once for the module."""
import os

import pytest

from web_site import open_page, serve

# Read when the native module creates its runtime and loads its model.
os.environ.update({"WGRT_LIMITS": "default", "WGRT_MATMUL": "f32", "WGRT_GEMV": "blocks"})
import wgrt  # noqa: E402

PROMPT = "The capital of France is"
N = 16


@pytest.fixture(scope="module")
def page(browser, web_root):
    """One page under the default limits, with the model loaded."""
    pg = open_page(browser, web_root, "?limits=default")
    url = serve(web_root, wgrt.default_model_path(), "smollm2.gguf")
    pg.model_info = pg.evaluate("""async (url) => {
        window.model = await wgrt.loadModel(url, {context: 256});
        return window.model.info;
    }""", url)
    yield pg
    pg.close()


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


def test_greedy_tokens_match_native_wgrt(page):
    assert page.model_info["vocab"] == 49152 and "30 layers" in page.model_info["description"]
    device = page.evaluate("wgrt.init()")
    # SwiftShader offers no shader-f16, and the default limits no optional
    # feature: the model runs on the f32 kernels (the fail-open path).
    assert device["f16"] is False and device["limits_mode"] == "default", device
    assert device["max_storage_buffer_binding_size"] == 128 << 20
    got = generate(page, PROMPT, {"temperature": 0, "maxTokens": N, "ignoreEos": True})
    native = wgrt.load(context=256).generate(PROMPT, max_tokens=N, temperature=0, ignore_eos=True)
    text = "".join(native)
    assert got["tokens"] == native.tokens
    assert got["text"] == text
    assert got["stats"]["generated_tokens"] == N


def test_chat_turn_through_the_models_template(page):
    prompt = page.evaluate("model.chatPrompt([{role: 'user', content: 'Hello!'}])")
    assert "<|im_start|>user\nHello!<|im_end|>" in prompt and prompt.endswith("<|im_start|>assistant\n")
    out = generate(page, prompt, {"temperature": 0, "maxTokens": 1})
    assert out["stats"]["prompt_tokens"] > 5 and out["stats"]["generated_tokens"] >= 1


def test_generation_cancelled_midway_and_the_model_goes_on(page):
    stopped = page.evaluate("""async (prompt) => {
        const abort = new AbortController();
        const steps = model.generate(prompt, {temperature: 0, maxTokens: 64, ignoreEos: true, inFlight: 2,
                                              signal: abort.signal});
        let n = 0;
        for (let r = await steps.next(); ; r = await steps.next()) {
            if (r.done) return {n, stats: r.value};
            if (++n == 2) abort.abort();
        }
    }""", PROMPT)
    assert stopped["stats"]["cancelled"] or stopped["stats"]["generated_tokens"] < 64, stopped
    assert stopped["n"] <= 4, stopped  # it stops at the next token (plus the steps already in flight)
    again = generate(page, PROMPT, {"temperature": 0, "maxTokens": 1, "ignoreEos": True})
    assert again["stats"]["generated_tokens"] == 1


def test_wasm_memory_never_holds_the_model(page):
    """The GGUF is read in ranges as its weights upload (16 MiB at a time,
    graph/constant_upload.h), so wasm memory stays under 64 MiB plus one
    chunk: less than the 94 MiB file itself. Wasm memory only grows, so its
    size after loading and generating (the tests before this one) is its
    peak. Before ranged reads the file went into the module's file system
    and was read from there: twice the model."""
    peak = page.evaluate("wgrt.memoryBytes()")
    size = os.path.getsize(wgrt.default_model_path())
    print(f"wasm memory {peak / 2**20:.1f} MiB for a {size / 2**20:.1f} MiB model")
    assert 0 < peak <= (64 + 16) << 20, peak
    assert peak < size, (peak, size)


def test_damaged_gguf_is_an_error_and_the_page_keeps_working(page, web_root, tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(open(wgrt.default_model_path(), "rb").read(4096))
    message = page.evaluate("""async (url) => {
        try { await wgrt.loadModel(url); return 'loaded'; } catch (e) { return `${e.name}: ${e.message}`; }
    }""", serve(web_root, broken))
    # The importer's message (what is wrong, at which byte), as a WgrtError.
    assert message.startswith("WgrtError:") and "gguf" in message and "at byte" in message, message
    assert generate(page, PROMPT, {"temperature": 0, "maxTokens": 1})["stats"]["generated_tokens"] == 1


def test_missing_url_is_an_error(page):
    message = page.evaluate("""async () => {
        try { await wgrt.loadModel('no_such_model.gguf'); return 'loaded'; } catch (e) { return e.message; }
    }""")
    assert "HTTP 404" in message, message


def test_bad_generation_option_is_refused(page):
    message = page.evaluate("""async () => {
        try { for await (const s of model.generate('x', {temprature: 0})) {} return 'ran'; }
        catch (e) { return e.message; }
    }""")
    assert "temprature" in message, message


def test_browser_without_webgpu_shows_a_message(browser, web_root):
    pg = browser.new_page()
    pg.add_init_script("delete Object.getPrototypeOf(navigator).gpu;")
    pg.goto(f"{web_root[1]}/index.html")
    pg.wait_for_function("!document.getElementById('device').textContent.startsWith('Starting')", timeout=30_000)
    assert pg.text_content("#device") == "No WebGPU device."
    assert "WebGPU" in pg.text_content("#error")
    pg.close()
