"""wgrt as ExecuTorch's WebGPU backend.

    import wgrt.executorch                  # registers "VulkanBackend" in this process
    from executorch.runtime import Runtime
    out = Runtime.get().load_program("model.pte").load_method("forward").execute([x])

Importing this module loads libwgrt_executorch.so, which registers wgrt under
the name VulkanPartitioner writes ("VulkanBackend") in the ExecuTorch runtime
of the `executorch` wheel. ExecuTorch then runs the program: its CPU kernels
run the operators left on the CPU and wgrt runs each delegate blob on the
GPU, on the same WebGPU device as the rest of wgrt's Python API.
"""

from __future__ import annotations

import ctypes
import os

from . import _wgrt  # noqa: F401  (loads libwgrt_shared.so, which the backend shares)

__all__ = ["BACKEND_NAME", "last_error", "library_path"]

BACKEND_NAME = "VulkanBackend"

library_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libwgrt_executorch.so")

if not os.path.exists(library_path):
    raise ImportError(
        f"{library_path} is missing: this wgrt was built without the ExecuTorch backend. "
        "Install the pinned wheels (pip install -r scripts/requirements-executorch.txt) and reinstall wgrt "
        "(scripts/setup.sh does both)")

# ExecuTorch's Python runtime first, so that libexecutorch.so is the one its
# extension loaded (the backend registers into that runtime's registry).
import executorch.runtime  # noqa: E402,F401

_lib = ctypes.CDLL(library_path)
_lib.wgrt_executorch_registration_status.restype = ctypes.c_int
_lib.wgrt_executorch_last_error.restype = ctypes.c_char_p

_status = _lib.wgrt_executorch_registration_status()
if _status != 0:
    raise ImportError(f"ExecuTorch refused to register {BACKEND_NAME} (error code {_status:#x}); "
                      "is another backend registered under that name?")


def last_error() -> str:
    """The message of the backend's last failure ("" if none). ExecuTorch's Python
    runtime only raises its error code; this says what was wrong and where."""
    return _lib.wgrt_executorch_last_error().decode("utf-8", "replace")
