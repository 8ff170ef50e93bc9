"""ExecuTorch's own runtime running programs with wgrt registered as its
VulkanBackend (import wgrt.executorch). Needs the installed wgrt package built
with the backend, the pinned torch and executorch wheels, and a WebGPU
adapter. Under CI (CI=true or WGRT_REQUIRE_GPU=1) anything missing fails;
elsewhere these tests skip with the reason."""
import os

import pytest


def _required() -> bool:
    return os.environ.get("CI") == "true" or os.environ.get("WGRT_REQUIRE_GPU") == "1"


def _missing(reason: str):
    if _required():
        pytest.fail(f"{reason} (CI requires the ExecuTorch backend)")
    pytest.skip(f"SKIPPED: {reason}")


@pytest.fixture(scope="session")
def runtime():
    """ExecuTorch's Runtime with wgrt registered as VulkanBackend."""
    try:
        import wgrt.executorch  # noqa: F401
        from executorch.runtime import Runtime
    except ImportError as e:
        _missing(f"wgrt.executorch cannot be imported: {e}")
    import wgrt
    try:
        wgrt.adapter_info()
    except wgrt.Error as e:
        _missing(f"no GPU adapter: {e}")
    return Runtime.get()
