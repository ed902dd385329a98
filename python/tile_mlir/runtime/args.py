"""Argument marshalling, shared by every backend: recognise buffers and scalars, check them against
Artifact.params (:class:`Signature`), pack the cuLaunchKernel ``kernelParams`` array.

Buffers may be

* numpy arrays (or objects exposing ``__array_interface__``): *host* arrays, staged through device
  memory by the caller of this module (copied in before and back after the launch);
* objects exposing ``__cuda_array_interface__`` (cupy, numba, :class:`~.memory.DeviceArray`) or
  DLPack (``__dlpack__`` + ``__dlpack_device__`` on a CUDA device: torch CUDA tensors, jax):
  *device* arrays, passed by pointer without copies (they must be C-contiguous);
* plain ints / ``CUdeviceptr``: raw device pointers, passed unchecked.

Scalars are Python or numpy numbers; they are range-checked against the parameter dtype and
passed by value (float16/bfloat16 as their 16-bit patterns).

How an object is read is decided once per Python type (``_STRATEGIES``), so the per-call cost is a
dict lookup plus the protocol access.
"""
from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from .errors import ArgumentError

__all__ = ["BufferView", "buffer_view", "scalar_value", "ParamPack", "normalize_dtype",
           "check_count", "check_buffer", "SCALAR_CTYPES", "is_device_array", "Signature"]

# --------------------------------------------------------------------------- dtypes

#: ctypes storage of a by-value scalar parameter, by numpy dtype name.
SCALAR_CTYPES: dict[str, type] = {
    "bool": ctypes.c_uint8, "int8": ctypes.c_int8, "uint8": ctypes.c_uint8,
    "int16": ctypes.c_int16, "uint16": ctypes.c_uint16, "int32": ctypes.c_int32,
    "uint32": ctypes.c_uint32, "int64": ctypes.c_int64, "uint64": ctypes.c_uint64,
    "float16": ctypes.c_uint16, "bfloat16": ctypes.c_uint16,  # passed as bit patterns
    "float32": ctypes.c_float, "float64": ctypes.c_double,
}


def normalize_dtype(dtype: Any) -> str:
    """Canonical dtype name ("float32", "uint8", "bfloat16", ...)."""
    if isinstance(dtype, str) and dtype in ("bfloat16", "bf16"):
        return "bfloat16"
    try:
        return np.dtype(dtype).name
    except TypeError:
        return str(dtype)


def _fmt_shape(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


# --------------------------------------------------------------------------- buffers


@dataclass
class BufferView:
    """What the runtime needs to know of one buffer argument."""

    kind: str  # "host" | "device" | "raw"
    ptr: int  # device pointer (0 for host arrays)
    shape: tuple | None  # None: unknown (raw pointers)
    dtype: str | None
    contiguous: bool = True
    host: np.ndarray | None = None  # the numpy array for kind "host"


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
                      _is_c_contiguous(shape, cai.get("strides"), dt.itemsize))


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
_DL_CODES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 6: "bool"}

#: stream passed to ``__dlpack__``: 1 is CUDA's legacy default stream, on which we launch unless
#: told otherwise (the producer then orders its pending work before ours).
DLPACK_STREAM = 1


def _dl_dtype(dt: _DLDataType) -> str:
    code = _DL_CODES.get(dt.code, f"dlpack-code{dt.code}")
    if code == "bool":
        return "bool"
    name = f"{code}{dt.bits}"
    return name if dt.lanes == 1 else f"{name}x{dt.lanes}"


def read_dlpack_capsule(capsule) -> tuple[int, int, int, tuple, str, tuple | None, int]:
    """(device_type, device_id, ptr, shape, dtype, strides-in-bytes, itemsize) of a DLPack capsule.

    The capsule is only read, not consumed: when it is garbage-collected its destructor calls the
    producer's deleter, while the producer's tensor object (held by the caller) keeps the memory.
    """
    name = _capsule_name(capsule)
    if name == b"dltensor":
        t = _DLManagedTensor.from_address(_capsule_ptr(capsule, name)).dl_tensor
    elif name == b"dltensor_versioned":
        t = _DLManagedTensorVersioned.from_address(_capsule_ptr(capsule, name)).dl_tensor
    else:
        raise ArgumentError(f"not a fresh DLPack capsule (name {name!r})")
    nd = t.ndim
    shape = tuple(t.shape[i] for i in range(nd))
    dtype = _dl_dtype(t.dtype)
    itemsize = max(t.dtype.bits * t.dtype.lanes // 8, 1)
    strides = None
    if t.strides:
        strides = tuple(t.strides[i] * itemsize for i in range(nd))
    ptr = (t.data or 0) + t.byte_offset
    return t.device.device_type, t.device.device_id, ptr, shape, dtype, strides, itemsize


def _from_dlpack(obj) -> BufferView:
    dev_type, _dev_id = obj.__dlpack_device__()[:2]
    dev_type = int(dev_type)
    if dev_type in (DL_CPU, DL_CUDA_HOST):
        arr = _writable(np.from_dlpack(obj))  # zero-copy view: updates land in the caller's object
        return BufferView("host", 0, arr.shape, arr.dtype.name, True, arr)
    if dev_type not in (DL_CUDA, DL_CUDA_MANAGED):
        raise ArgumentError(f"DLPack device type {dev_type} is neither CUDA nor CPU")
    try:
        capsule = obj.__dlpack__(stream=DLPACK_STREAM)
    except TypeError:
        capsule = obj.__dlpack__()
    _, _, ptr, shape, dtype, strides, itemsize = read_dlpack_capsule(capsule)
    return BufferView("device", ptr, shape, dtype, _is_c_contiguous(shape, strides, itemsize))


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
    raise ArgumentError(f"expected an array (numpy, __cuda_array_interface__ or DLPack), got "
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


# --------------------------------------------------------------------------- checking


def _label(kernel: str, index: int, name: str) -> str:
    return f"{kernel}: argument {index} ('{name}')"


def check_count(kernel: str, params, nargs: int) -> None:
    if nargs != len(params):
        names = ", ".join(p.name for p in params)
        raise ArgumentError(f"{kernel}() takes {len(params)} argument"
                            f"{'s' if len(params) != 1 else ''} ({names}), got {nargs}")


def check_buffer(kernel: str, index: int, param, view: BufferView, want_dtype: str) -> None:
    """Raise ArgumentError naming the parameter when dtype, shape or layout do not match."""
    if view.kind == "raw":
        return
    if view.dtype != want_dtype or (param.shape and tuple(view.shape) != tuple(param.shape)):
        want = f"{want_dtype} buffer" + (f" of shape {_fmt_shape(param.shape)}" if param.shape else "")
        got = f"{view.dtype} array of shape {_fmt_shape(view.shape)}"
        raise ArgumentError(f"{_label(kernel, index, param.name)}: expected {want}, got {got}")
    if not view.contiguous:
        raise ArgumentError(f"{_label(kernel, index, param.name)}: device array must be "
                            "C-contiguous (pass a contiguous copy)")


_INT_RANGES = {n: (int(np.iinfo(n).min), int(np.iinfo(n).max))
               for n in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")}


def scalar_value(kernel: str, index: int, param, value, want_dtype: str):
    """The Python value to store in the ctypes slot of a scalar parameter (checked)."""
    label = _label(kernel, index, param.name)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, np.generic):
        value = value.item()
    if want_dtype in _INT_RANGES or want_dtype == "bool":
        if isinstance(value, float) or not isinstance(value, int):
            raise ArgumentError(f"{label}: expected a {want_dtype} scalar, got "
                                f"{type(value).__name__} {value!r}")
        lo, hi = _INT_RANGES.get(want_dtype, (0, 1))
        if not lo <= value <= hi:
            raise ArgumentError(f"{label}: {value} does not fit in {want_dtype} [{lo}, {hi}]")
        return int(value)
    if want_dtype in ("float32", "float64", "float16", "bfloat16"):
        if not isinstance(value, (int, float)):
            raise ArgumentError(f"{label}: expected a {want_dtype} scalar, got "
                                f"{type(value).__name__} {value!r}")
        if want_dtype == "float16":
            return int(np.array(value, np.float16).view(np.uint16))
        if want_dtype == "bfloat16":  # round-to-nearest-even from float32
            bits = int(np.array(value, np.float32).view(np.uint32))
            if (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF:
                return (bits >> 16) | 0x40
            return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF
        return float(value)
    raise ArgumentError(f"{label}: unsupported scalar dtype {want_dtype!r}")


class Signature:
    """One kernel's parameters as the backends check its arguments (errors name the parameter)."""

    __slots__ = ("kernel", "params", "dtypes", "buffers")

    def __init__(self, kernel: str, params):
        self.kernel = kernel
        self.params = tuple(params)
        self.dtypes = tuple(normalize_dtype(p.dtype) for p in self.params)
        self.buffers = tuple(i for i, p in enumerate(self.params) if p.kind == "buffer")

    def label(self, index: int) -> str:
        return _label(self.kernel, index, self.params[index].name)

    def check_count(self, nargs: int) -> None:
        check_count(self.kernel, self.params, nargs)

    def buffer(self, index: int, obj) -> BufferView:
        """The checked view of buffer argument ``index``."""
        try:
            view = buffer_view(obj)
        except ArgumentError as e:
            raise ArgumentError(f"{self.label(index)}: {e}") from None
        check_buffer(self.kernel, index, self.params[index], view, self.dtypes[index])
        return view

    def scalar(self, index: int, value):
        """The checked value of scalar argument ``index`` (see scalar_value)."""
        return scalar_value(self.kernel, index, self.params[index], value, self.dtypes[index])

    def outputs(self, args) -> dict:
        """Buffer arguments by parameter name (LaunchResult.outputs)."""
        return {self.params[i].name: args[i] for i in self.buffers}


# --------------------------------------------------------------------------- packing


class ParamPack:
    """The ``void* kernelParams[]`` array and one value slot per parameter, built once per kernel.

    Buffers occupy a c_uint64 (the device pointer), scalars a slot of their ctypes type; the driver
    copies the values at launch, so the slots may be refilled for the next call right away.
    """

    def __init__(self, params, dtypes: Sequence[str]):
        self.slots = []
        for p, dt in zip(params, dtypes):
            if p.kind == "buffer":
                self.slots.append(ctypes.c_uint64(0))
            elif p.kind == "scalar":
                ct = SCALAR_CTYPES.get(dt)
                if ct is None:
                    raise ArgumentError(f"parameter '{p.name}': unsupported scalar dtype {dt!r}")
                self.slots.append(ct())
            else:
                raise ArgumentError(f"parameter '{p.name}': unknown kind {p.kind!r}")
        n = len(self.slots)
        self.array = (ctypes.c_void_p * max(n, 1))(*[ctypes.addressof(s) for s in self.slots])
        self.address = ctypes.addressof(self.array) if n else 0

    def values(self) -> list:
        return [s.value for s in self.slots]
