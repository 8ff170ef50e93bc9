"""A program's .ptd beside it (model.pte -> model.ptd, as ExecuTorch's export
names them) is used by `wgrt run`, `wgrt inspect` and the Python load when
no .ptd is named, and they say so on stderr; --ptd still chooses; without
one the missing named data is refused naming its key."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))
FIXTURE = ROOT / "tests" / "fixtures" / "pte" / "external_weights"


def wgrt(*args):
    return subprocess.run([str(WGRT), *map(str, args)], capture_output=True, text=True, timeout=300)


def test_run_and_inspect_take_the_ptd_beside(tmp_path):
    pte = tmp_path / "model.pte"
    shutil.copy(FIXTURE.with_suffix(".pte"), pte)
    shutil.copy(FIXTURE.with_suffix(".ptd"), tmp_path / "model.ptd")
    out = tmp_path / "out"
    proc = wgrt("run", pte, "--input", FIXTURE.parent / "external_weights.in0.npy", "--output-dir", out)
    assert proc.returncode == 0, proc.stderr
    assert f"using {tmp_path / 'model.ptd'}, the .ptd beside the program" in proc.stderr
    got = np.load(next(out.glob("*.npy")))
    np.testing.assert_allclose(got, np.load(FIXTURE.parent / "external_weights.out0.npy"), rtol=1e-5, atol=1e-5)
    proc = wgrt("inspect", pte)
    assert proc.returncode == 0, proc.stderr
    assert "the .ptd beside the program" in proc.stderr
    assert "named data in none of the files given" not in proc.stdout

    # Named explicitly: no message, the named file is used.
    other = tmp_path / "weights.ptd"
    shutil.move(tmp_path / "model.ptd", other)
    proc = wgrt("run", pte, "--ptd", other)
    assert proc.returncode == 0, proc.stderr
    assert "beside the program" not in proc.stderr
    # Neither: refused naming the named data's key.
    proc = wgrt("run", pte)
    assert proc.returncode == 1
    assert "is named data '" in proc.stderr and "in neither the program nor the .ptd files given" in proc.stderr


def test_python_load_takes_the_ptd_beside(tmp_path):
    pte = tmp_path / "model.pte"
    shutil.copy(FIXTURE.with_suffix(".pte"), pte)
    shutil.copy(FIXTURE.with_suffix(".ptd"), tmp_path / "model.ptd")
    code = ("import numpy as np, sys, wgrt\n"
            f"p = wgrt.load({str(pte)!r})\n"
            f"x = np.load({str(FIXTURE.parent / 'external_weights.in0.npy')!r})\n"
            "y = p.method('forward')(x)[0]\n"
            f"np.testing.assert_allclose(y, np.load({str(FIXTURE.parent / 'external_weights.out0.npy')!r}), rtol=1e-5, atol=1e-5)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "the .ptd beside the program" in proc.stderr
