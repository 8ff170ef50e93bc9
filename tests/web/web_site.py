"""Helpers of the browser tests (conftest.py holds their fixtures)."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def serve(web_root, path, name=None):
    """Offers the file `path` beside the page (web_root: the fixture);
    returns its URL, relative to the page."""
    root, _ = web_root
    target = root / (name or Path(path).name)
    if not target.exists():
        target.symlink_to(Path(path).resolve())
    return target.name


def open_page(browser, web_root, query=""):
    """The wgrt page, its WebGPU device up (a test fails with the page's
    console when it is not). page.console holds what it logged."""
    pg = browser.new_page()
    pg.console = []
    pg.on("console", lambda m: pg.console.append(m.text))
    pg.on("pageerror", lambda e: pg.console.append(f"pageerror: {e}"))
    pg.goto(f"{web_root[1]}/index.html{query}")
    try:
        pg.wait_for_function("!document.getElementById('device').textContent.startsWith('Starting')",
                             timeout=60_000)
    except Exception:
        pytest.fail("the page never started:\n" + "\n".join(pg.console))
    device = pg.text_content("#device")
    if not device.startswith("WebGPU:"):
        pytest.fail(f"no WebGPU device in the page: {device} {pg.text_content('#error')}\n" + "\n".join(pg.console))
    return pg
