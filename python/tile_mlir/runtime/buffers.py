"""Buffer arguments read, once per Python type: numpy, ``__cuda_array_interface__``, DLPack
(capsules decoded here) and raw pointers each become a :class:`BufferView`.

Buffers may be

* numpy arrays (or objects exposing ``__array_interface__``): *host* arrays, staged through device
  memory by the backend (copied in before and back after the launch);
* objects exposing ``__cuda_array_interface__`` (cupy, numba, :class:`~.memory.DeviceArray`) or
  DLPack (``__dlpack__`` + ``__dlpack_device__`` on a CUDA device: torch CUDA tensors, jax):
  *device* arrays, passed by pointer without copies (they must be C-contiguous);
* plain ints / ``CUdeviceptr``: raw device pointers, passed unchecked.

How an object is read is decided once per Python type (``_STRATEGIES``), so the per-call cost is a
dict lookup plus the protocol access.
"""
from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from .dtypes import BIT_PATTERNS, dlpack_dtype
from .errors import ArgumentError, ArgumentTypeError

__all__ = ["BufferView", "buffer_view", "is_device_array", "read_dlpack_capsule"]


@dataclass
class BufferView:
    """What the runtime needs to know of one buffer argument."""

    kind: str  # "host" | "device" | "raw"
    ptr: int  # device pointer (0 for host arrays)
    shape: tuple | None  # None: unknown (raw pointers)
    dtype: str | None
    contiguous: bool = True
    host: np.ndarray | None = None  # the numpy array for kind "host"
    readonly: bool = False  # a device array its producer marks read-only


def _c_strides(shape: Sequence[int], itemsize: int) -> tuple[int, ...]:
    out, acc = [], itemsize
    for s in reversed(shape):
        out.append(acc)
        acc *= max(int(s), 1)
    return tuple(reversed(out))


def _is_c_contiguous(shape, strides, itemsize) -> bool:
    if strides is None:
        return True
    # dimensions of extent 1 may carry any stride
    want = _c_strides(shape, itemsize)
    return all(s == 1 or a == b for s, a, b in zip(shape, strides, want)) or math.prod(shape) == 0


def _from_numpy(obj) -> BufferView:
    return BufferView("host", 0, obj.shape, obj.dtype.name, True, obj)


def _from_array_interface(obj) -> BufferView:
    arr = np.asarray(obj)  # shares memory through __array_interface__
    return BufferView("host", 0, arr.shape, arr.dtype.name, True, arr)


def _from_cai(obj) -> BufferView:
    try:
        cai = obj.__cuda_array_interface__
    except AttributeError:  # e.g. a torch CPU tensor: the property exists but refuses
        if hasattr(obj, "__dlpack_device__"):
            return _from_dlpack(obj)
        if hasattr(obj, "__array_interface__") or hasattr(obj, "__array__"):
            return _from_array_interface(obj)
        raise
    shape = tuple(cai["shape"])
    dt = np.dtype(cai["typestr"])
    ptr = cai["data"][0] or 0
    return BufferView("device", ptr, shape, dt.name,
                      _is_c_contiguous(shape, cai.get("strides"), dt.itemsize),
                      readonly=bool(cai["data"][1]))


# DLPack C structures (dlpack.h, v0.8 legacy and v1.x versioned).
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype, _capsule_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
_capsule_ptr = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_ptr.restype, _capsule_ptr.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]

DL_CPU, DL_CUDA, DL_CUDA_HOST, DL_CUDA_MANAGED = 1, 2, 3, 13
DL_READ_ONLY = 1  # DLPACK_FLAG_BITMASK_READ_ONLY of a versioned capsule's flags

#: stream passed to ``__dlpack__``: 1 is CUDA's legacy default stream, on which we launch unless
#: told otherwise (the producer then orders its pending work before ours).
DLPACK_STREAM = 1


def read_dlpack_capsule(capsule) -> tuple[int, int, int, tuple, str, tuple | None, int]:
    """(device_type, device_id, ptr, shape, dtype, strides-in-bytes, itemsize) of a DLPack capsule
    (dtype named as numpy/ml_dtypes name it: torch.bfloat16 is "bfloat16").

    The capsule is only read, not consumed: when it is garbage-collected its destructor calls the
    producer's deleter, while the producer's tensor object (held by the caller) keeps the memory.
    """
    return _read_capsule(capsule)[:7]


def _read_capsule(capsule) -> tuple:
    """read_dlpack_capsule's fields and whether the producer marks the tensor read-only."""
    name = _capsule_name(capsule)
    readonly = False
    if name == b"dltensor":
        t = _DLManagedTensor.from_address(_capsule_ptr(capsule, name)).dl_tensor
    elif name == b"dltensor_versioned":
        m = _DLManagedTensorVersioned.from_address(_capsule_ptr(capsule, name))
        t, readonly = m.dl_tensor, bool(m.flags & DL_READ_ONLY)
    else:
        raise ArgumentTypeError(f"not a fresh DLPack capsule (name {name!r})")
    nd = t.ndim
    shape = tuple(t.shape[i] for i in range(nd))
    dtype = dlpack_dtype(t.dtype.code, t.dtype.bits, t.dtype.lanes)
    itemsize = max(t.dtype.bits * t.dtype.lanes // 8, 1)
    strides = None
    if t.strides:
        strides = tuple(t.strides[i] * itemsize for i in range(nd))
    ptr = (t.data or 0) + t.byte_offset
    return t.device.device_type, t.device.device_id, ptr, shape, dtype, strides, itemsize, readonly


def _from_dlpack(obj) -> BufferView:
    dev_type, _dev_id = obj.__dlpack_device__()[:2]
    dev_type = int(dev_type)
    if dev_type in (DL_CPU, DL_CUDA_HOST):
        try:
            arr = np.from_dlpack(obj)
        except (BufferError, RuntimeError, TypeError, ValueError):  # a dtype numpy lacks (bf16)
            return _host_bit_patterns(obj)
        arr = _writable(arr)  # zero-copy view: updates land in the caller's object
        return BufferView("host", 0, arr.shape, arr.dtype.name, True, arr)
    if dev_type not in (DL_CUDA, DL_CUDA_MANAGED):
        raise ArgumentTypeError(f"DLPack device type {dev_type} is neither CUDA nor CPU")
    try:
        capsule = obj.__dlpack__(stream=DLPACK_STREAM)
    except TypeError:
        capsule = obj.__dlpack__()
    _, _, ptr, shape, dtype, strides, itemsize, readonly = _read_capsule(capsule)
    return BufferView("device", ptr, shape, dtype, _is_c_contiguous(shape, strides, itemsize),
                      readonly=readonly)


def _host_bit_patterns(obj) -> BufferView:
    """A host DLPack tensor of a dtype numpy has only through ml_dtypes (a torch.bfloat16 CPU
    tensor), viewed as its bit patterns (BIT_PATTERNS) over the producer's memory."""
    capsule = obj.__dlpack__()
    _, _, ptr, shape, dtype, strides, itemsize, _ = _read_capsule(capsule)
    storage = BIT_PATTERNS.get(dtype)
    if storage is None:
        raise ArgumentTypeError(f"cannot read a host DLPack tensor of dtype {dtype}")
    if not _is_c_contiguous(shape, strides, itemsize):
        raise ArgumentError(f"host DLPack tensor of dtype {dtype} must be C-contiguous")
    n = math.prod(shape)
    buf = (ctypes.c_char * max(n * itemsize, 1)).from_address(ptr)
    buf._keep = capsule  # unconsumed, so the producer's memory lives while the view does
    arr = np.frombuffer(buf, storage, count=n).reshape(shape)
    return BufferView("host", 0, shape, dtype, True, arr)


def _writable(arr: np.ndarray) -> np.ndarray:
    """numpy marks arrays from legacy (unversioned) DLPack capsules read-only since it cannot
    know; the object is the caller's to write, so re-view its memory writable (C-contiguous)."""
    if arr.flags.writeable or not arr.flags.c_contiguous or arr.size == 0:
        return arr
    buf = (ctypes.c_char * arr.nbytes).from_address(arr.ctypes.data)
    buf._keep = arr  # keeps the capsule (and so the producer's memory) alive
    return np.frombuffer(buf, arr.dtype, count=arr.size).reshape(arr.shape)


def _from_raw(obj) -> BufferView:
    return BufferView("raw", int(obj), None, None)


def _reject(obj) -> BufferView:
    raise ArgumentTypeError(f"expected an array (numpy, __cuda_array_interface__ or DLPack), got "
                        f"{type(obj).__name__}")


_STRATEGIES: dict[type, Callable[[Any], BufferView]] = {np.ndarray: _from_numpy, int: _from_raw}


def _strategy_for(tp: type) -> Callable[[Any], BufferView]:
    if issubclass(tp, np.ndarray):
        return _from_numpy
    if hasattr(tp, "__cuda_array_interface__"):
        return _from_cai
    if hasattr(tp, "__dlpack__") and hasattr(tp, "__dlpack_device__"):
        return _from_dlpack
    if hasattr(tp, "__array_interface__"):
        return _from_array_interface
    if tp.__name__ == "CUdeviceptr" or (issubclass(tp, int) and tp is not bool):
        return _from_raw
    return _from_instance  # the protocol may be set per instance


def _from_instance(obj) -> BufferView:
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_cai(obj)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return _from_dlpack(obj)
    if hasattr(obj, "__array_interface__"):
        return _from_array_interface(obj)
    return _reject(obj)


def buffer_view(obj) -> BufferView:
    """Describe one buffer argument (strategy chosen once per type)."""
    tp = type(obj)
    fn = _STRATEGIES.get(tp)
    if fn is None:
        fn = _STRATEGIES[tp] = _strategy_for(tp)
    return fn(obj)


def is_device_array(obj) -> bool:
    try:
        return buffer_view(obj).kind == "device"
    except Exception:
        return False
