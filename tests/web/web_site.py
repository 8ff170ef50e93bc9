"""Helpers of the browser tests (conftest.py holds their fixtures)."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def serve(web_root, path, name=None):
    """Offers the file `path` beside the page (web_root: the fixture);
    returns its URL, relative to the page."""
    root, _ = web_root
    target = root / (name or Path(path).name)
    if not target.exists():
        target.symlink_to(Path(path).resolve())
    return target.name
