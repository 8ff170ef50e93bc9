"""Browser tests of the web target (scripts/build_web.sh builds it): pages
served from 127.0.0.1, driven in Debian's headless Chromium through
playwright. WebGPU there is SwiftShader, on the CPU. A missing build, browser
or WebGPU adapter fails these tests (never a skip): CI must see them run."""
import functools
import http.server
import os
import shutil
import tempfile
import threading
from pathlib import Path

import pytest

from web_site import ROOT, open_page

SITE = ROOT / os.environ.get("WGRT_WEB_BUILD_DIR", "build-web") / "site"
CHROMIUM = os.environ.get("WGRT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--enable-unsafe-webgpu", "--enable-features=Vulkan"]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def web_root():
    """A folder served over HTTP: the built site, plus what tests add (models,
    fixtures) as links. Returns (folder, base URL)."""
    if not (SITE / "wgrt_engine.wasm").is_file():
        pytest.fail(f"{SITE} is not built: run scripts/build_web.sh")
    root = Path(tempfile.mkdtemp(prefix="wgrt-web-"))
    for entry in SITE.iterdir():
        (root / entry.name).symlink_to(entry)
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    shutil.rmtree(root)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: scripts/setup.sh installs Debian's chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, web_root):
    pg = open_page(browser, web_root)
    yield pg
    pg.close()
