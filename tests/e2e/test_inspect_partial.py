"""`wgrt inspect` on partially delegated programs: it does not only refuse
them, it says they run through ExecuTorch's runtime with wgrt.executorch
(exit 0) when wgrt has every delegated op, and still refuses (exit 1) a
program with a delegated op wgrt lacks."""
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WGRT = Path(os.environ.get("WGRT_BIN", ROOT / "build" / "wgrt"))
FIX = ROOT / "tests" / "fixtures" / "executorch"


def inspect(name):
    return subprocess.run([str(WGRT), "inspect", str(FIX / f"{name}.pte")], capture_output=True, text=True,
                          timeout=120)


def test_partial_program_points_to_executorch():
    proc = inspect("encoder")
    assert proc.returncode == 0, proc.stderr
    assert "aten::any.out" in proc.stdout  # the CPU kernels are listed
    assert "runs through ExecuTorch's runtime with wgrt.executorch" in proc.stdout
    assert "import wgrt.executorch" in proc.stdout


def test_program_with_an_op_wgrt_lacks_is_refused():
    proc = inspect("unsupported_op")
    assert proc.returncode == 1
    assert "test.unknown_op.X   <- not supported by wgrt" in proc.stdout
    assert "wgrt.executorch" not in proc.stdout
