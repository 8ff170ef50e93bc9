"""The device allocator registry: one allocator per device type, a clear
NotFound for a type with none, and WebGPU allocations that are storage buffers."""
import pytest

import wgrt
from wgrt import _wgrt

T = _wgrt._testing


def test_double_registration_is_an_error():
    # Premise: the default runtime registered its WebGPU allocator.
    assert T.registered("webgpu")
    with pytest.raises(wgrt.Error) as err:
        T.register_allocator("webgpu")
    assert err.value.code == "InvalidArgument" and "already registered" in str(err.value)

    r = T.AllocatorRegistry()
    r.register("cpu")
    with pytest.raises(wgrt.Error, match="'cpu' is already registered"):
        r.register("cpu")
    assert r.has("cpu") and not r.has("webgpu")


def test_unregistered_device_type_is_not_found():
    r = T.AllocatorRegistry()
    assert not r.has("webgpu")
    with pytest.raises(wgrt.Error) as err:
        r.allocate("webgpu", 64)
    assert err.value.code == "NotFound"
    assert "no allocator is registered for device type 'webgpu'" in str(err.value)
    assert isinstance(err.value, RuntimeError)


def test_webgpu_allocation_is_a_storage_buffer_and_is_freed():
    r = T.AllocatorRegistry()
    r.register("webgpu")
    base = T.live_device_bytes()
    a = r.allocate("webgpu", 10)
    assert a["device"] == "webgpu" and a["size"] == 12  # rounded up to 4 bytes
    assert "Storage" in a["usage"]
    assert T.live_device_bytes() == base
    assert r.allocate("cpu" if r.has("cpu") else "webgpu", 4)["device"] == "webgpu"
