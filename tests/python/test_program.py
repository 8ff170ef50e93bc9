"""A .pte program from tests/fixtures/pte through the package: host and
device outputs, a device output fed back, specs, stats and errors."""
from pathlib import Path

import numpy as np
import pytest

import wgrt
from wgrt import _wgrt

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pte"


@pytest.fixture(scope="module")
def program():
    return wgrt.load(FIXTURES / "add_chain.pte")


def test_methods_specs_and_stats(program):
    assert isinstance(program, wgrt.Program)
    assert program.methods == ["forward"]
    m = program.method("forward")
    assert m.input_specs == [((2, 3), "float32"), ((2, 3), "float32")]
    assert m.output_specs == [((2, 3), "float32")]
    stats = program.memory_stats()
    assert stats["total_bytes"] > 0 and stats["tensor_bytes"] > 0


def test_unknown_method_lists_the_names(program):
    with pytest.raises(wgrt.Error) as err:
        program.method("nope")
    assert err.value.code == "NotFound" and "forward" in str(err.value)


def test_host_and_device_outputs_match_torch(program):
    m = program.method("forward")
    ins = [np.load(FIXTURES / f"add_chain.in{i}.npy") for i in range(2)]
    want = np.load(FIXTURES / "add_chain.out0.npy")
    np.testing.assert_allclose(m(*ins)[0], want, rtol=1e-4, atol=1e-4)
    (dev,) = m(*ins, outputs="device")
    assert isinstance(dev, wgrt.Tensor) and "Storage" in dev._buffer_usage()
    np.testing.assert_allclose(dev.numpy(), want, rtol=1e-4, atol=1e-4)
    # Fed back as the first input: the same as the host path, bound in place.
    again = m(dev, ins[1])
    assert m._graph._last_traffic()["bound_input_buffers"][0] == dev._buffer_id()
    np.testing.assert_array_equal(again[0], m(dev.numpy(), ins[1])[0])


def test_wrong_input_dtype_names_the_input(program):
    m = program.method("forward")
    with pytest.raises(wgrt.Error, match="input 0: expected dtype f32, got i32"):
        m(np.zeros((2, 3), np.int32), np.zeros((2, 3), np.float32))
