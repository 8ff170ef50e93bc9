"""The limits mode of the process runtime from Python: wgrt.configure(limits=)
or WGRT_LIMITS before first use (each in its own process: the runtime is
made once per process and kept)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import wgrt

ROOT = Path(__file__).resolve().parents[2]


def run_python(code, **env):
    base = {k: v for k, v in os.environ.items() if k != "WGRT_LIMITS"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**base, **env}, cwd=ROOT)


def test_configure_default_limits_then_run_a_program():
    proc = run_python(
        "import numpy as np, wgrt\n"
        "wgrt.configure(limits='default')\n"
        "p = wgrt.load('tests/fixtures/pte/mlp.pte')\n"
        "m = p.method('forward')\n"
        "x = [np.ones(shape, dtype=dtype) for shape, dtype in m.input_specs]\n"
        "m(*x)\n"
        "print(wgrt.adapter_info()['limits'])\n"
        "try:\n"
        "    wgrt.configure(limits='adapter'); wgrt.adapter_info()\n"
        "except wgrt.Error as e:\n"
        "    print(e.code, e)\n")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "default"
    # The device exists: another mode is refused, naming both.
    assert lines[1].startswith("InvalidArgument") and "already exists with limits default" in lines[1], lines[1]


def test_the_variable_selects_the_mode():
    proc = run_python("import wgrt; print(wgrt.adapter_info()['limits'])", WGRT_LIMITS="default")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "default"
    bad = run_python("import wgrt; wgrt.adapter_info()", WGRT_LIMITS="tiny")
    assert bad.returncode != 0
    assert "WGRT_LIMITS: expected adapter or default, got 'tiny'" in bad.stderr


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="expected adapter or default"):
        wgrt.configure(limits="tiny")
