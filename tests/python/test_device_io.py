"""Device-resident outputs and inputs of a graph (seed 001): outputs handed
over as new GPU storage buffers, transactional allocation, zero-byte outputs,
and device tensors bound as inputs without a host copy.

The graph is wgrt._testing.add_graph(n): inputs x, y (f32, [<= 8, 4]) and n
outputs, output k = x + (k + 1) * y, each a graph output with its own buffer.
"""
import gc

import numpy as np
import pytest

import wgrt
from wgrt import _wgrt

T = _wgrt._testing


def live_bytes_after_gc():
    gc.collect()  # graphs and tensors of earlier tests, freed now rather than mid-test
    return T.live_device_bytes()


def make_method(n=3, rows=8, cols=4):
    return wgrt.Method("add_chain", T.add_graph(n, rows, cols))


def inputs(rows, seed=0, cols=4):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((rows, cols)).astype(np.float32),
            rng.standard_normal((rows, cols)).astype(np.float32))


def expected(x, y, n):
    outs, prev = [], x
    for _ in range(n):
        prev = prev + y  # in the graph's order, so float32 results match exactly
        outs.append(prev)
    return outs


def test_device_outputs_are_new_gpu_storage_buffers():
    m = make_method(3)
    info = m._graph._output_info()
    # Premise: every output is a graph output of its own (not a shared
    # intermediate), and this call asks for device outputs.
    assert [o["storage"] for o in info] == ["output"] * 3
    x, y = inputs(8)
    base = live_bytes_after_gc()
    outs = m(x, y, outputs="device")
    assert all(isinstance(o, wgrt.Tensor) and o.device == "webgpu" for o in outs)

    # The memory is a new GPU storage buffer per output, not the graph's own.
    ids = [o._buffer_id() for o in outs]
    assert all(i != 0 for i in ids) and len(set(ids)) == 3
    assert not set(ids) & {o["buffer_id"] for o in info}
    for o in outs:
        assert "Storage" in o._buffer_usage(), o._buffer_usage()
    assert T.live_device_bytes() - base == sum(o._buffer_size() for o in outs) == 3 * 8 * 4 * 4
    for got, want in zip(outs, expected(x, y, 3)):
        assert got.shape == (8, 4) and got.dtype == "float32"
        np.testing.assert_array_equal(got.numpy(), want)

    # The next call writes the graph's buffers, never a result still held.
    x2, y2 = inputs(5, seed=1)
    again = m(x2, y2, outputs="device")
    for got, want in zip(outs, expected(x, y, 3)):
        np.testing.assert_array_equal(got.numpy(), want)
    for got, want in zip(again, expected(x2, y2, 3)):
        assert got.shape == (5, 4)
        np.testing.assert_array_equal(got.numpy(), want)
    del outs, again, got, o  # loop variables hold tensors too
    assert live_bytes_after_gc() == base


def test_per_output_choice_mixes_host_and_device():
    m = make_method(2)
    x, y = inputs(8)
    host, dev = m(x, y, outputs=[False, True])
    assert isinstance(host, np.ndarray) and isinstance(dev, wgrt.Tensor)
    np.testing.assert_array_equal(host, x + y)
    np.testing.assert_array_equal(dev.numpy(), (x + y) + y)


def test_failed_output_allocation_leaves_the_graph_as_it_was_and_retry_works():
    m = make_method(3)
    x, y = inputs(8)
    m(x, y)  # live shapes now (8, 4)
    base = live_bytes_after_gc()
    shapes_before = [o["live_shape"] for o in m._graph._output_info()]
    assert shapes_before == [(8, 4)] * 3

    x5, y5 = inputs(5, seed=2)
    T.fail_nth_allocation(2)  # the first output gets its buffer, the second fails
    with pytest.raises(wgrt.Error) as err:
        m(x5, y5, outputs="device")
    T.fail_nth_allocation(0)
    # Premise: the failure hit part way, at output 1, after output 0 was made.
    assert err.value.code == "OutOfMemory" and "'output 1'" in str(err.value)
    assert T.live_device_bytes() == base  # output 0's buffer was freed
    assert [o["live_shape"] for o in m._graph._output_info()] == shapes_before

    outs = m(x5, y5, outputs="device")
    for got, want in zip(outs, expected(x5, y5, 3)):
        assert got.shape == (5, 4)
        np.testing.assert_array_equal(got.numpy(), want)
    # And the host path still sees consistent shapes afterwards.
    for got, want in zip(m(x, y), expected(x, y, 3)):
        np.testing.assert_array_equal(got, want)
    del outs
    assert live_bytes_after_gc() == base


def test_zero_byte_outputs_get_empty_results():
    m = make_method(2)
    x, y = np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32)
    base = live_bytes_after_gc()
    outs = m(x, y, outputs="device")
    # Premise: the call asked for device outputs and got device tensors.
    assert all(isinstance(o, wgrt.Tensor) for o in outs)
    for o in outs:
        assert o.shape == (0, 4) and o.nbytes == 0
        assert o._buffer_id() == 0  # no allocation for no bytes
        assert o.numpy().shape == (0, 4)
    assert T.live_device_bytes() == base
    host = m(x, y)
    assert [h.shape for h in host] == [(0, 4), (0, 4)]
    # An empty device tensor is a valid input too.
    assert m(outs[0], y)[0].shape == (0, 4)


def test_device_input_binds_the_same_buffer_without_a_host_copy():
    m = make_method(2)
    x, y = inputs(8)
    first = m(x, y, outputs="device")
    # Premise: the first output is a device tensor.
    assert isinstance(first[0], wgrt.Tensor)

    via_host = m(first[0].numpy(), y)
    host_traffic = m._graph._last_traffic()
    via_device = m(first[0], y)
    dev_traffic = m._graph._last_traffic()
    for a, b in zip(via_device, via_host):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(via_device[0], (x + y) + y)  # first[0] + y

    # The call bound the tensor's own buffer and uploaded only y.
    assert dev_traffic["bound_input_buffers"] == [first[0]._buffer_id(), 0]
    assert dev_traffic["rebound_dispatches"] >= 1
    assert host_traffic["host_upload_bytes"] == 2 * x.nbytes
    assert dev_traffic["host_upload_bytes"] == y.nbytes


def test_freed_device_input_is_never_bound_again():
    m = make_method(2)
    x, y = inputs(8)
    t = m(x, y, outputs="device")[0]
    m(t, y)
    del t
    gc.collect()
    # A later call with host inputs uses the graph's own buffers again.
    out = m(x, y)
    assert m._graph._last_traffic()["bound_input_buffers"] == [0, 0]
    np.testing.assert_array_equal(out[1], (x + y) + y)


def test_bad_device_inputs_are_refused_naming_the_input():
    big = make_method(1, rows=8)
    small = make_method(1, rows=4)
    x, y = inputs(8)
    t = big(x, y, outputs="device")[0]
    with pytest.raises(wgrt.Error) as err:
        small(t, np.zeros((4, 4), np.float32))
    assert err.value.code == "InvalidArgument"
    assert "input 0" in str(err.value) and "exceeds the maximum" in str(err.value)
    with pytest.raises(wgrt.Error, match="expected 2 inputs"):
        small(t)
    # The refused call changed nothing.
    xs, ys = inputs(4)
    np.testing.assert_array_equal(small(xs, ys)[0], xs + ys)


class DLPackOnly:
    """Offers only the DLPack protocol (numpy's), as a tensor of another
    framework would: the binding cannot take the numpy path."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_inputs():
    # torch when it is installed, else numpy's own DLPack export.
    try:
        import torch
        wrap = torch.from_numpy
    except ImportError:
        wrap = DLPackOnly
    m = make_method(1)
    x, y = inputs(8)
    out = m(wrap(x), wrap(y))
    np.testing.assert_array_equal(out[0], x + y)
    if wrap is not DLPackOnly:
        out = m(wrap(x), wrap(y).t().contiguous().t())  # non-contiguous is fine
        np.testing.assert_array_equal(out[0], x + y)
