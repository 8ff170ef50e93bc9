"""`wgrt inspect` tells the truth: on every .pte fixture (programs wgrt runs,
one-op programs, quantized ones, models, refused ones and partially
delegated ones) its verdict is what loading does. A program inspect passes
runs under `wgrt run` with the fixture's own inputs; one it refuses fails
there too, and each reason inspect names appears in run's error. A
partially delegated program passes inspect (it points to ExecuTorch's
runtime) exactly when every delegate's checks pass, and `wgrt run` refuses
it naming its CPU kernels."""
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WGRT = ROOT / "build" / "wgrt"
FIXTURES = ROOT / "tests" / "fixtures"
MANIFESTS = sorted([*FIXTURES.glob("pte/**/*.json"), *FIXTURES.glob("executorch/*.json")])


def _wgrt(*args):
    env = dict(os.environ, WGRT_REQUIRE_GPU="1")
    return subprocess.run([str(WGRT), *map(str, args)], capture_output=True, text=True, timeout=120, env=env)


def _id(path):
    return str(path.relative_to(FIXTURES).with_suffix(""))


def test_the_fixtures_cover_every_verdict():
    kinds = {"runs": 0, "refused": 0, "partial": 0}
    for m in MANIFESTS:
        info = json.loads(m.read_text())
        partial = any(meth.get("cpu_kernels") for meth in info["methods"].values())
        kinds["partial" if partial else "refused" if "refused" in m.parts else "runs"] += 1
    assert kinds["runs"] >= 100 and kinds["refused"] >= 1 and kinds["partial"] >= 6, kinds


@pytest.mark.parametrize("manifest", MANIFESTS, ids=_id)
def test_inspect_verdict_is_loads(manifest):
    info = json.loads(manifest.read_text())
    folder = manifest.parent
    pte = folder / info["pte"]
    ptd = ["--ptd", folder / info["ptd"][0]] if info["ptd"] else []
    inspected = _wgrt("inspect", pte, *ptd)
    assert inspected.returncode in (0, 1), inspected.stderr
    partial = any(m.get("cpu_kernels") for m in info["methods"].values())
    reasons = []
    if "loading refuses it:" in inspected.stdout:
        after = inspected.stdout.split("loading refuses it:", 1)[1]
        reasons = [line.strip() for line in after.splitlines() if line.startswith("    ")]

    for method, spec in info["methods"].items():
        inputs = [a for f in spec["cases"][0]["inputs"] for a in ("--input", folder / f["file"])]
        ran = _wgrt("run", pte, *ptd, "--method", method, *inputs)
        if partial:
            assert ran.returncode != 0
            assert "CPU kernels" in ran.stderr, ran.stderr
            for k in spec["cpu_kernels"]:
                assert k in ran.stderr
            continue
        if inspected.returncode == 0:
            assert ran.returncode == 0, f"inspect passed it, run failed:\n{ran.stderr}"
        else:
            assert ran.returncode != 0, f"inspect refused it, run succeeded:\n{inspected.stdout}"
            assert reasons, inspected.stdout
            assert any(r in ran.stderr for r in reasons), (reasons, ran.stderr)
    if partial:
        assert (inspected.returncode == 0) == (not reasons), inspected.stdout
        if inspected.returncode == 0:
            assert "ExecuTorch" in inspected.stdout
