"""Argument recognition (numpy / CUDA array interface / DLPack / raw pointers), checking against
Artifact.params, and kernelParams packing (pure logic)."""
import ctypes

import numpy as np
import pytest

from conftest import FakeCAI, fake_artifact
from tile_mlir.artifact import Param
from tile_mlir.runtime.args import (ParamPack, buffer_view, check_buffer, check_count,
                                    normalize_dtype, read_dlpack_capsule, scalar_value)
from tile_mlir.runtime.errors import ArgumentError

P_SRC = Param("src", "buffer", "uint8", (64,))


class FakeDLPackCUDA:
    """Looks like a CUDA tensor exporting DLPack (the capsule is numpy's, over host memory)."""

    def __init__(self, arr):
        self.arr = arr
        self.streams = []

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return self.arr.__dlpack__()

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA


def test_numpy_is_host():
    a = np.zeros(64, np.uint8)
    v = buffer_view(a)
    assert (v.kind, v.shape, v.dtype) == ("host", (64,), "uint8") and v.host is a


def test_cai_is_device_without_copy():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    v = buffer_view(FakeCAI(a))
    assert (v.kind, v.ptr, v.shape, v.dtype, v.contiguous) == \
        ("device", a.ctypes.data, (3, 4), "float32", True)


def test_cai_strides():
    a = np.zeros((4, 4), np.int32)
    assert buffer_view(FakeCAI(a, strides=(16, 4))).contiguous
    assert not buffer_view(FakeCAI(a, strides=(4, 16))).contiguous


def test_dlpack_cuda_read_from_capsule():
    a = np.arange(24, dtype=np.int16).reshape(2, 3, 4)
    obj = FakeDLPackCUDA(a)
    v = buffer_view(obj)
    assert (v.kind, v.ptr, v.shape, v.dtype, v.contiguous) == \
        ("device", a.ctypes.data, (2, 3, 4), "int16", True)
    assert obj.streams == [1]  # legacy default stream handed to the producer


def test_dlpack_capsule_offset_view():
    a = np.arange(10, dtype=np.float64)[2:]
    dev, _, ptr, shape, dtype, strides, itemsize = read_dlpack_capsule(a.__dlpack__())
    assert (dev, ptr, shape, dtype, itemsize) == (1, a.ctypes.data, (8,), "float64", 8)


def test_dlpack_cpu_object_becomes_host_view():
    class CPUDL:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__()

        def __dlpack_device__(self):
            return (1, 0)

    a = np.zeros(5, np.uint8)
    v = buffer_view(CPUDL(a))
    assert v.kind == "host"
    v.host[:] = 7  # shares memory
    assert a.tolist() == [7] * 5


def test_raw_pointer_and_rejects():
    assert buffer_view(0x1000).kind == "raw"
    with pytest.raises(ArgumentError, match="expected an array"):
        buffer_view([1, 2, 3])
    with pytest.raises(ArgumentError, match="expected an array"):
        buffer_view(True)


def test_check_count_names_params():
    art = fake_artifact()
    with pytest.raises(ArgumentError, match=r"takes 3 arguments \(src, dst, n\), got 2"):
        check_count(art.kernel_name, art.params, 2)


def test_check_buffer_messages():
    bad_dtype = buffer_view(np.zeros(64, np.int8))
    with pytest.raises(ArgumentError) as e:
        check_buffer("k", 0, P_SRC, bad_dtype, "uint8")
    assert str(e.value) == ("k: argument 0 ('src'): expected uint8 buffer of shape (64,), "
                            "got int8 array of shape (64,)")
    with pytest.raises(ArgumentError, match=r"'src'.*got uint8 array of shape \(8, 8\)"):
        check_buffer("k", 0, P_SRC, buffer_view(np.zeros((8, 8), np.uint8)), "uint8")
    with pytest.raises(ArgumentError, match="'src'.*C-contiguous"):
        check_buffer("k", 0, Param("src", "buffer", "int32", ()),
                     buffer_view(FakeCAI(np.zeros((4, 4), np.int32), strides=(4, 16))), "int32")
    # no static shape in the param: any shape of the right dtype
    check_buffer("k", 0, Param("x", "buffer", "uint8", ()), buffer_view(np.zeros(3, np.uint8)),
                 "uint8")


def test_scalar_values():
    p = Param("n", "scalar", "uint32")
    assert scalar_value("k", 2, p, 4096, "uint32") == 4096
    assert scalar_value("k", 2, p, np.uint16(7), "uint32") == 7
    assert scalar_value("k", 2, p, np.array(9), "uint32") == 9
    with pytest.raises(ArgumentError, match=r"argument 2 \('n'\): -1 does not fit in uint32"):
        scalar_value("k", 2, p, -1, "uint32")
    with pytest.raises(ArgumentError, match="expected a uint32 scalar, got float"):
        scalar_value("k", 2, p, 1.5, "uint32")
    f = Param("alpha", "scalar", "float32")
    assert scalar_value("k", 0, f, 2, "float32") == 2.0
    assert scalar_value("k", 0, f, 1.0, "float16") == 0x3C00
    assert scalar_value("k", 0, f, 1.0, "bfloat16") == 0x3F80
    with pytest.raises(ArgumentError, match="expected a float32 scalar, got str"):
        scalar_value("k", 0, f, "1", "float32")


def test_param_pack_layout():
    params = (Param("a", "buffer", "float32", (4,)), Param("n", "scalar", "int32"),
              Param("x", "scalar", "float64"), Param("h", "scalar", "float16"))
    pack = ParamPack(params, [normalize_dtype(p.dtype) for p in params])
    pack.slots[0].value = 0xDEADBEEF00
    pack.slots[1].value = -5
    pack.slots[2].value = 2.5
    pack.slots[3].value = 0x3C00
    ptrs = (ctypes.c_void_p * 4).from_address(pack.address)
    assert ctypes.c_uint64.from_address(ptrs[0]).value == 0xDEADBEEF00
    assert ctypes.c_int32.from_address(ptrs[1]).value == -5
    assert ctypes.c_double.from_address(ptrs[2]).value == 2.5
    assert ctypes.c_uint16.from_address(ptrs[3]).value == 0x3C00
    assert ParamPack((), []).address == 0
    with pytest.raises(ArgumentError, match="unsupported scalar dtype"):
        ParamPack((Param("z", "scalar", "complex64"),), ["complex64"])


def test_dtype_names_from_dlpack_codes():
    from tile_mlir.runtime.dtypes import dlpack_dtype

    assert [dlpack_dtype(*c) for c in [(4, 16, 1), (2, 16, 1), (10, 8, 1), (12, 8, 1),
                                       (15, 6, 1), (17, 4, 1), (1, 8, 4), (6, 8, 1), (99, 8, 1)]] \
        == ["bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float6_e2m3fn",
            "float4_e2m1fn", "uint8x4", "bool", "dlpack-code99-8bit"]


@pytest.mark.parametrize("bits", [1, 4, 6])
def test_pack_is_low_bits_first_and_unpack_inverts_it(bits):
    from tile_mlir.runtime.dtypes import pack, unpack

    v = np.random.default_rng(bits).integers(0, 1 << bits, 40).astype(np.uint8)
    stream = sum(int(x) << (bits * i) for i, x in enumerate(v))
    want = stream.to_bytes(-(-40 * bits // 8), "little")
    assert pack(v, bits).tobytes() == want
    assert np.array_equal(unpack(np.frombuffer(want, np.uint8), bits, 40), v)


def test_packed_param_forms():
    p = Param("a", "buffer", "float6_e3m2fn", (4, 16), bits=6)
    assert check_buffer("k", 0, p, buffer_view(np.zeros((4, 12), np.uint8)), p.dtype) == 0
    assert check_buffer("k", 0, p, buffer_view(np.zeros((4, 16), np.uint8)), p.dtype) == 6
    with pytest.raises(ArgumentError, match=r"expected float6_e3m2fn buffer of shape \(4, 16\) "
                                            r"\(or its uint8 bit patterns\), or its packed bytes "
                                            r"\(uint8 buffer of shape \(4, 12\)\), got uint8 array "
                                            r"of shape \(4, 13\)"):
        check_buffer("k", 0, p, buffer_view(np.zeros((4, 13), np.uint8)), p.dtype)
    with pytest.raises(ArgumentError, match="a device array must hold the packed bytes"):
        check_buffer("k", 0, p, buffer_view(FakeCAI(np.zeros((4, 16), np.uint8))), p.dtype)


def test_wrong_dtype_is_a_type_error_wrong_shape_a_value_error():
    from tile_mlir.errors import ArgumentTypeError

    with pytest.raises(ArgumentTypeError):
        check_buffer("k", 0, P_SRC, buffer_view(np.zeros(64, np.int8)), "uint8")
    with pytest.raises(ArgumentError) as e:
        check_buffer("k", 0, P_SRC, buffer_view(np.zeros(8, np.uint8)), "uint8")
    assert not isinstance(e.value, TypeError)


class BF16DLPack:
    """A tensor exporting DLPack as torch.bfloat16 does (kDLBfloat, 16 bits): numpy's capsule of a
    uint16 array with its type code set to 4. ``device`` 1 is the CPU, 2 CUDA."""

    def __init__(self, bits: np.ndarray, device: int):
        self.bits, self.device = bits, device

    def __dlpack__(self, stream=None, **kw):
        from tile_mlir.runtime.buffers import _capsule_name, _capsule_ptr, _DLManagedTensor

        cap = self.bits.__dlpack__()
        _DLManagedTensor.from_address(_capsule_ptr(cap, _capsule_name(cap))).dl_tensor.dtype.code = 4
        return cap

    def __dlpack_device__(self):
        return (self.device, 0)


def test_dlpack_bfloat16_host_and_device():
    bits = np.arange(12, dtype=np.uint16).reshape(3, 4)
    host = buffer_view(BF16DLPack(bits, 1))  # numpy cannot import it: viewed as bit patterns
    assert (host.kind, host.dtype, host.shape) == ("host", "bfloat16", (3, 4))
    host.host[0, 0] = 99
    assert bits[0, 0] == 99 and host.host.dtype == np.uint16
    dev = buffer_view(BF16DLPack(bits, 2))
    assert (dev.kind, dev.dtype, dev.ptr) == ("device", "bfloat16", bits.ctypes.data)
    p = Param("x", "buffer", "bfloat16", (3, 4))
    check_buffer("k", 0, p, host, "bfloat16")
    check_buffer("k", 0, p, dev, "bfloat16")
