"""The WebGPU smoke page (tests/web/gpu_smoke) in headless Chromium.

Builds smoke.cpp against src/gpu/web/ with emscripten, serves it from
127.0.0.1 and waits for the page to set its title to "pass" or "fail: ...".
Chromium on a machine without a GPU runs WebGPU on SwiftShader. Missing
WebGPU is a failure, not a skip: this test exists to prove the browser path
works. The browser and the server are conftest.py's.
"""

import subprocess

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from web_site import ROOT, serve

SMOKE = ROOT / "tests" / "web" / "gpu_smoke"
TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def site(tmp_path_factory, web_root):
    """The smoke page, built by build.sh and offered as gpu_smoke/ beside the wgrt page."""
    out = tmp_path_factory.mktemp("gpu_smoke")
    build = subprocess.run([str(SMOKE / "build.sh"), str(out)], capture_output=True, text=True)
    assert build.returncode == 0, f"build.sh failed:\n{build.stdout}\n{build.stderr}"
    return f"{web_root[1]}/{serve(web_root, out, 'gpu_smoke')}"


def run_page(browser, url, init_script=None):
    """Loads the page and returns (its final title, its console)."""
    messages = []
    page = browser.new_page()
    try:
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
        page.close()
    return title, "\n".join(messages)


def test_gpu_smoke(browser, site):
    title, console = run_page(browser, f"{site}/index.html")
    assert title == "pass", f"page title: {title!r}\nconsole:\n{console}"
    print(console)


def test_missing_webgpu_is_reported_not_thrown(browser, site):
    # A browser without navigator.gpu: the adapter request must end in the C++
    # callback with status Unavailable and a message, not a JavaScript error.
    title, console = run_page(browser, f"{site}/index.html", init_script="delete Navigator.prototype.gpu;")
    assert title.startswith("fail: no adapter (status 3)") and "navigator.gpu is missing" in title, \
        f"page title: {title!r}\nconsole:\n{console}"
    assert "[pageerror]" not in console, console
