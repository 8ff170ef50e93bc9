"""`wgrt --version` prints the project's version (the one pyproject.toml and
CMakeLists.txt both state)."""
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))


def test_version_flag_prints_the_project_version():
    pyproject = (ROOT / "pyproject.toml").read_text()
    want = re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1)
    proc = subprocess.run([str(WGRT), "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"wgrt {want}"
