"""Bad programs and bad inputs through ExecuTorch's runtime: errors come back
as exceptions with wgrt's message (wgrt.executorch.last_error()), the process
does not abort, and the next valid call works."""
import numpy as np
import pytest

from et_fixtures import PARTIAL_DIR, import_or_skip, load_case_arrays, manifest

torch = import_or_skip("torch")
wgrt = import_or_skip("wgrt")


def patched_program(tmp_path, name, old: bytes, new: bytes):
    """A copy of a fixture with the first `old` (inside a delegate blob) replaced."""
    data = (PARTIAL_DIR / f"{name}.pte").read_bytes()
    assert len(old) == len(new) and data.count(old) >= 1, old
    path = tmp_path / f"{name}.patched.pte"
    path.write_bytes(data.replace(old, new, 1))
    return str(path)


def test_bad_blob_header_fails_init(runtime, tmp_path):
    from wgrt import executorch as wex

    program = runtime.load_program(patched_program(tmp_path, "two_blobs", b"VH00", b"VX00"))
    with pytest.raises(RuntimeError):
        program.load_method("forward")
    assert "'VX00', expected 'VH00'" in wex.last_error()


def test_unsupported_op_fails_init_naming_it(runtime):
    from wgrt import executorch as wex

    # A real export (VulkanPartitioner delegates x[idx] as aten.index.Tensor)
    # with that op renamed in the blob to one no runtime has.
    program = runtime.load_program(str(PARTIAL_DIR / "unsupported_op.pte"))
    with pytest.raises(RuntimeError):
        program.load_method("forward")
    assert "unsupported operator(s): test.unknown_op.X" in wex.last_error()
    # The process is fine and the real program still runs.
    good = runtime.load_program(str(PARTIAL_DIR / "two_blobs.pte")).load_method("forward")
    assert good.execute([torch.zeros(2, 8)])[0].shape == (2, 6)


def _check_next_call_works(method, name):
    case = manifest(PARTIAL_DIR / f"{name}.json")["methods"]["forward"]["cases"][0]
    (out,) = method.execute([torch.from_numpy(a) for a in load_case_arrays(PARTIAL_DIR, case["inputs"])])
    np.testing.assert_allclose(out.numpy(), np.load(PARTIAL_DIR / case["outputs"][0]["file"]), atol=1e-4, rtol=1e-4)


def test_wrong_dtype_fails_then_next_call_works(runtime):
    method = runtime.load_program(str(PARTIAL_DIR / "two_blobs.pte")).load_method("forward")
    with pytest.raises(RuntimeError):
        method.execute([torch.zeros(2, 8, dtype=torch.int32)])
    _check_next_call_works(method, "two_blobs")


def test_beyond_max_shape_fails_then_next_call_works(runtime):
    method = runtime.load_program(str(PARTIAL_DIR / "dynamic_cpu.pte")).load_method("forward")
    with pytest.raises(RuntimeError):
        method.execute([torch.zeros(9, 12)])  # batch is bounded by 8
    _check_next_call_works(method, "dynamic_cpu")


def test_wgrt_still_usable_after_errors(runtime):
    program = wgrt.load(str(PARTIAL_DIR.parent / "pte" / "add_chain.pte"))
    x = np.ones((2, 3), np.float32)
    (out,) = program.method("forward")(x, x)
    np.testing.assert_array_equal(out, np.full((2, 3), 6, np.float32))
