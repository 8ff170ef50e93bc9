"""The WebGPU smoke page (tests/web/gpu_smoke) in headless Chromium.

Builds smoke.cpp against src/gpu/web/ with emscripten, serves it from
127.0.0.1 and waits for the page to set its title to "pass" or "fail: ...".
Chromium on a machine without a GPU runs WebGPU on SwiftShader
(/work/shared/reference/browser.md). Missing WebGPU is a failure, not a skip:
this test exists to prove the browser path works.

    python3 -m pip install playwright pytest   # no browser download: Debian's chromium
    python3 -m pytest tests/web -s
"""

import functools
import http.server
import os
import pathlib
import subprocess
import threading

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parents[2]
SMOKE = ROOT / "tests" / "web" / "gpu_smoke"
CHROMIUM = os.environ.get("WGRT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--enable-unsafe-webgpu", "--enable-features=Vulkan"]
TIMEOUT_MS = 120_000


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript"}

    def log_message(self, format, *args):  # quiet: pytest shows the page's console instead
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("gpu_smoke")
    build = subprocess.run([str(SMOKE / "build.sh"), str(out)], capture_output=True, text=True)
    assert build.returncode == 0, f"build.sh failed:\n{build.stdout}\n{build.stderr}"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def run_page(url, init_script=None):
    """Loads the page and returns (its final title, its console)."""
    messages = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.on("console", lambda m: messages.append(f"[{m.type}] {m.text}"))
            page.on("pageerror", lambda e: messages.append(f"[pageerror] {e}"))
            if init_script:
                page.add_init_script(init_script)
            page.goto(url)
            try:
                page.wait_for_function("document.title == 'pass' || document.title.startsWith('fail')",
                                       timeout=TIMEOUT_MS)
            except PlaywrightTimeout:
                pass  # the title says where it stopped
            title = page.title()
        finally:
            browser.close()
    return title, "\n".join(messages)


def test_gpu_smoke(site):
    title, console = run_page(f"{site}/index.html")
    assert title == "pass", f"page title: {title!r}\nconsole:\n{console}"
    print(console)


def test_missing_webgpu_is_reported_not_thrown(site):
    # A browser without navigator.gpu: the adapter request must end in the C++
    # callback with status Unavailable and a message, not a JavaScript error.
    title, console = run_page(f"{site}/index.html", init_script="delete Navigator.prototype.gpu;")
    assert title.startswith("fail: no adapter (status 3)") and "navigator.gpu is missing" in title, \
        f"page title: {title!r}\nconsole:\n{console}"
    assert "[pageerror]" not in console, console
