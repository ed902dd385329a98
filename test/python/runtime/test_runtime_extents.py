"""Runtime extents at launch (a `?` of a buffer type, dialect/types.py; runtime/tensor_map.py at_shape) behind
the fake CUDA driver: an argument of any extent up to the bound is taken, its tensor map encoded from its own
shape, re-encoded when the shape or address changes; rows TMA cannot stride are refused naming the map; the
manifest keeps which dims are the launch's."""
import numpy as np
import pytest

from conftest import fake_artifact
from tile_mlir.artifact import Artifact, Param, TensorMapParam
from tile_mlir.errors import ArgumentError
from tile_mlir.runtime import jit
from tile_mlir.runtime.memory import DeviceArray

BOUND = (1 << 31) - 1
PARAMS = (Param("A", "buffer", "uint16", (BOUND, BOUND), dynamic=(0, 1)), Param("M", "scalar", "int32"))


@pytest.fixture(autouse=True)
def fresh_encodings(monkeypatch):
    from collections import OrderedDict

    from tile_mlir.runtime import tensor_map

    monkeypatch.setattr(tensor_map, "_encoded", OrderedDict())


def art():
    tm = TensorMapParam("A", data_type="bfloat16", global_dim=(BOUND, BOUND), global_strides=(2 * BOUND,),
                        box_dim=(64, 64), element_strides=(1, 1), swizzle="128b")
    return fake_artifact(params=PARAMS, kernel_name="dyn", block=(128, 1, 1), tensor_maps=(tm,))


def test_each_launch_encodes_the_arrays_own_shape(fake_cuda):
    k = jit(art(), backend="gpu")
    a = DeviceArray.zeros((3, 24), "uint16")
    k(a, 3)
    k(a, 3)  # (the same array: nothing to encode)
    assert fake_cuda.calls["cuTensorMapEncodeTiled"] == 1
    first = fake_cuda.encoded[0]
    assert (first["dims"], first["strides"], first["box"]) == ([24, 3], [48], [64, 64])
    b = DeviceArray.zeros((100, 8), "uint16")
    k(b, 100)
    assert fake_cuda.calls["cuTensorMapEncodeTiled"] == 2
    assert (fake_cuda.encoded[-1]["dims"], fake_cuda.encoded[-1]["strides"]) == ([8, 100], [16])
    k(np.zeros((5, 16), np.uint16), 5)  # (a host array: staged, its shape the map's)
    assert fake_cuda.encoded[-1]["dims"] == [16, 5]


@pytest.mark.parametrize("shape, message", [
    ((4, 12), "row stride of 24 bytes; TMA needs multiples of 16"),
    ((4, 12, 8), r"expected uint16 buffer of shape \(\?, \?\) \(each \? 1 to 2147483647\)"),
])
def test_rows_tma_cannot_stride_are_refused(fake_cuda, shape, message):
    with pytest.raises(ArgumentError, match=message):
        jit(art(), backend="gpu")(DeviceArray.zeros(shape, "uint16"), 4)
    assert fake_cuda.calls["launch"] == 0


def test_a_raw_pointer_has_no_shape(fake_cuda):
    with pytest.raises(ArgumentError, match="has runtime extents: pass an array, not a raw pointer"):
        jit(art(), backend="gpu")(DeviceArray.zeros((8, 8), "uint16").ptr, 8)


def test_the_emulator_gets_the_arrays_shape(fake_sim):
    a = np.zeros((7, 32), np.uint16)
    jit(art(), backend="sim")(a, 7)
    tm = fake_sim.calls[0]["args"][2]
    assert tm.global_address is fake_sim.calls[0]["args"][0]
    assert (tm.global_dim, tm.global_strides) == ((32, 7), (64,))


def test_the_manifest_keeps_the_runtime_dims(tmp_path):
    a = art()
    loaded = Artifact.load(a.save(tmp_path))
    assert loaded.params[0].dynamic == (0, 1) and loaded.params == a.params
    assert "A: uint16[?x?]" in repr(loaded)
    with pytest.raises(ArgumentError, match="dynamic must list distinct dims"):
        Param("A", "buffer", "uint16", (4, 4), dynamic=(2,))
