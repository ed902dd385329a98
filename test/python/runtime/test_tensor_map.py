"""Tensor maps at launch (runtime/tensor_map.py, docs/tma.md §4) behind a fake CUDA driver: each
Artifact.tensor_maps record is encoded by cuTensorMapEncodeTiled for the device address its buffer gets,
into a 64-byte aligned parameter after the kernel's own, re-encoded only when that address changes; the
manifest keeps the records; tile-sim gets TensorMaps over the same arrays."""
import ctypes

import numpy as np
import pytest

from conftest import fake_artifact
from tile_mlir.artifact import Artifact, Param, TensorMapParam
from tile_mlir.errors import ArgumentError
from tile_mlir.runtime import jit
from tile_mlir.runtime.memory import DeviceArray

@pytest.fixture(autouse=True)
def fresh_encodings(monkeypatch):
    """Encodings are kept per (record, address) across kernels; a test starts without them."""
    from collections import OrderedDict

    from tile_mlir.runtime import tensor_map

    monkeypatch.setattr(tensor_map, "_encoded", OrderedDict())


PARAMS = (Param("A", "buffer", "uint16", (64, 128)), Param("out", "buffer", "uint16", (64, 128)))


def tmap(buffer="A", **kw):
    fields = dict(data_type="bfloat16", global_dim=(128, 64), global_strides=(256,), box_dim=(64, 32),
                  element_strides=(1, 1), swizzle="128b")
    fields.update(kw)
    return TensorMapParam(buffer, **fields)


def art(maps=(tmap(), tmap("out", swizzle="none", l2_promotion="256b"))):
    return fake_artifact(params=PARAMS, kernel_name="tma_rt", block=(128, 1, 1), tensor_maps=maps)


def param_bytes(launch, index) -> bytes:
    slots = (ctypes.c_void_p * 4).from_address(launch["params"])
    return ctypes.string_at(slots[index], 128), slots[index]


def test_each_map_is_encoded_for_its_buffer_after_the_kernel_parameters(fake_cuda):
    a, out = np.zeros((64, 128), np.uint16), np.zeros((64, 128), np.uint16)
    k = jit(art(), backend="gpu")  # (kept: its parameter pack is what the launch read)
    k(a, out)
    first, second = fake_cuda.encoded
    drv = fake_cuda.real
    assert first == dict(dtype=drv.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, rank=2,
                         address=first["address"], dims=[128, 64], strides=[256], box=[64, 32], elem_strides=[1, 1],
                         interleave=drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
                         swizzle=drv.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B,
                         l2=drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
                         oob=drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    assert second["swizzle"] == drv.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE
    assert second["l2"] == drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B
    (launch,) = fake_cuda.launches
    slots = (ctypes.c_void_p * 4).from_address(launch["params"])
    ptr_a, ptr_out = (ctypes.c_uint64.from_address(slots[i]).value for i in (0, 1))
    assert (first["address"], second["address"]) == (ptr_a, ptr_out)  # the staged arrays' device memory
    for i, (n, addr) in enumerate(((1, ptr_a), (2, ptr_out))):
        blob, where = param_bytes(launch, 2 + i)
        assert where % 64 == 0 and np.frombuffer(blob, np.uint64)[:2].tolist() == [n, addr]


def test_a_map_is_reencoded_only_when_its_buffer_moves(fake_cuda):
    k = jit(art((tmap(),)), backend="gpu")
    a, out = DeviceArray.zeros((64, 128), "uint16"), DeviceArray.zeros((64, 128), "uint16")
    k(a, out)
    k(a, out)
    assert fake_cuda.calls["cuTensorMapEncodeTiled"] == 1 and fake_cuda.calls["launch"] == 2
    b = DeviceArray.zeros((64, 128), "uint16")
    k(b, out)
    assert fake_cuda.calls["cuTensorMapEncodeTiled"] == 2 and fake_cuda.encoded[-1]["address"] == b.ptr


def test_the_emulator_gets_tensor_maps_over_the_arrays(fake_sim):
    a, out = np.zeros((64, 128), np.uint16), np.zeros((64, 128), np.uint16)
    jit(art(), backend="sim")(a, out)
    args = fake_sim.calls[0]["args"]
    assert len(args) == 4 and args[2].global_address is args[0] and args[3].global_address is args[1]
    assert (args[2].box_dim, args[3].global_strides) == ((64, 32), (256,))


def test_records_are_checked_and_saved_with_the_manifest(tmp_path):
    a = art()
    loaded = Artifact.load(a.save(tmp_path))
    assert loaded.tensor_maps == a.tensor_maps
    assert "tensor_maps" not in fake_artifact().manifest()  # kernels without maps: manifests as before
    with pytest.raises(ArgumentError, match="describes 'B', which is not a buffer parameter"):
        art((tmap("B"),))
    with pytest.raises(ArgumentError, match="box_dim must be 2 ints"):
        tmap(box_dim=(64,))
    with pytest.raises(ArgumentError, match="swizzle must be one of"):
        tmap(swizzle="96b")
