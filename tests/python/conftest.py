"""The wgrt package's tests need the installed package (scripts/setup.sh runs
`pip install .`) and a WebGPU adapter: without one they fail under CI
(CI=true or WGRT_REQUIRE_GPU=1) and skip elsewhere, as the C++ suite does."""
import os

import pytest

# Logits are compared with fp32 references at f32 tolerances: prefill GEMMs in
# f32 (the default is f16 where the device offers shader-f16, lavapipe included;
# tests/e2e/test_smollm2_reference.py measures that one).
os.environ.setdefault("WGRT_MATMUL", "f32")

wgrt = pytest.importorskip("wgrt", reason="the wgrt package is not installed: run scripts/setup.sh")


def _gpu_required() -> bool:
    return os.environ.get("CI") == "true" or os.environ.get("WGRT_REQUIRE_GPU") == "1"


@pytest.fixture(scope="session", autouse=True)
def adapter():
    try:
        return wgrt.adapter_info()
    except wgrt.Error as e:
        if _gpu_required():
            pytest.fail(f"no GPU adapter, and CI requires one: {e}")
        pytest.skip(f"SKIPPED: no GPU adapter ({e})")
