"""Argument marshalling, shared by every backend: recognise buffers and scalars, check them against
Artifact.params (:class:`Signature`), stage host arrays (:class:`HostBuffer`), pack the
cuLaunchKernel ``kernelParams`` array. Every refusal is an ArgumentError naming the kernel's
parameter (ArgumentTypeError for a wrong type, dtype or count).

Buffers are read by buffers.py (numpy arrays, ``__cuda_array_interface__``, DLPack, raw pointers).

A buffer's dtype is the parameter's (runtime/dtypes.py: ml_dtypes names such as "bfloat16" for
bf16), or the unsigned integers of its width as bit patterns (uint16 for bfloat16). A parameter of
packed sub-byte elements (Param.bits) takes its packed bytes (uint8 of Param.packed_shape) or, for a
host array, its elements one per byte (Param.shape), which are packed for the kernel and unpacked
after it. Host arrays that are not C-contiguous (Fortran order, strided views) are run on through a
C-contiguous copy written back after the call. A buffer the kernel writes (Artifact.outputs: every
buffer when the artifact does not record them) must be writeable; read-only arrays are refused for
it, never silently left unwritten.

Scalars are Python or numpy numbers; they are range-checked against the parameter dtype and
passed by value (float16/bfloat16 as their 16-bit patterns).
"""
from __future__ import annotations

import ctypes
from typing import Any, Sequence

import numpy as np

from .buffers import BufferView, buffer_view, is_device_array, read_dlpack_capsule  # noqa: F401 (re-exported)
from .dtypes import BIT_PATTERNS, pack, unpack
from .errors import ArgumentError, ArgumentTypeError

__all__ = ["BufferView", "buffer_view", "scalar_value", "ParamPack", "normalize_dtype",
           "check_count", "check_buffer", "SCALAR_CTYPES", "is_device_array", "Signature",
           "HostBuffer"]

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


# --------------------------------------------------------------------------- checking


def _label(kernel: str, index: int, name: str) -> str:
    return f"{kernel}: argument {index} ('{name}')"


def check_count(kernel: str, params, nargs: int) -> None:
    if nargs != len(params):
        names = ", ".join(p.name for p in params)
        raise ArgumentTypeError(f"{kernel}() takes {len(params)} argument"
                                f"{'s' if len(params) != 1 else ''} ({names}), got {nargs}")


def _forms(param, want_dtype: str) -> list[tuple[tuple[str, ...], tuple, int]]:
    """(dtypes, shape, bits to pack) of each form a buffer argument of ``param`` may take."""
    dtypes = (want_dtype,) + ((BIT_PATTERNS[want_dtype],) if want_dtype in BIT_PATTERNS else ())
    if not param.bits:
        return [(dtypes, param.shape, 0)]
    if "uint8" not in dtypes:  # elements of i1 (bool) as bytes 0/1
        dtypes += ("uint8",)
    return [(dtypes, param.shape, param.bits), (("uint8",), param.packed_shape, 0)]


def _shape_fits(got: tuple, want: tuple, dynamic: tuple) -> bool:
    """The array's shape is the parameter's, a runtime dim (Param.dynamic) any extent 1 .. its bound."""
    return len(got) == len(want) and all(1 <= g <= w if d in dynamic else g == w
                                         for d, (g, w) in enumerate(zip(got, want)))


def _describe(forms, dynamic=()) -> str:
    out = []
    for dtypes, shape, bits in forms:
        shown = tuple("?" if d in dynamic else n for d, n in enumerate(shape))
        text = f"{dtypes[0]} buffer" + (f" of shape {_fmt_shape(shown)}" if shape else "")
        if dynamic:
            text += f" (each ? 1 to {max(shape[d] for d in dynamic)})"
        if len(dtypes) > 1:
            text += f" (or its {'/'.join(dtypes[1:])} bit patterns)"
        out.append(text if not out else f"its packed bytes ({text})")
    return ", or ".join(out)


def check_buffer(kernel: str, index: int, param, view: BufferView, want_dtype: str) -> int:
    """Raise ArgumentError naming the parameter when dtype, shape or layout do not match; return
    the element bits to pack for an argument holding packed elements one per byte, else 0."""
    if view.kind == "raw":
        if param.dynamic:  # (its tensor maps are encoded from the array's shape)
            raise ArgumentError(f"{_label(kernel, index, param.name)}: has runtime extents: pass an array, "
                                "not a raw pointer")
        return 0
    label = _label(kernel, index, param.name)
    forms = _forms(param, want_dtype)
    for dtypes, shape, bits in forms:
        if view.dtype in dtypes and (not shape or _shape_fits(tuple(view.shape), tuple(shape), param.dynamic)):
            break
    else:
        got = f"{view.dtype} array of shape {_fmt_shape(view.shape)}"
        error = ArgumentError if any(view.dtype in f[0] for f in forms) else ArgumentTypeError
        raise error(f"{label}: expected {_describe(forms, param.dynamic)}, got {got}")
    if view.kind == "device":
        if not view.contiguous:
            raise ArgumentError(f"{label}: device array must be C-contiguous (pass a contiguous "
                                "copy)")
        if bits:
            raise ArgumentError(f"{label}: a device array must hold the packed bytes "
                                f"({_describe(forms[1:])})")
    return bits


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
            raise ArgumentTypeError(f"{label}: expected a {want_dtype} scalar, got "
                                f"{type(value).__name__} {value!r}")
        lo, hi = _INT_RANGES.get(want_dtype, (0, 1))
        if not lo <= value <= hi:
            raise ArgumentError(f"{label}: {value} does not fit in {want_dtype} [{lo}, {hi}]")
        return int(value)
    if want_dtype in ("float32", "float64", "float16", "bfloat16"):
        if not isinstance(value, (int, float)):
            raise ArgumentTypeError(f"{label}: expected a {want_dtype} scalar, got "
                                f"{type(value).__name__} {value!r}")
        if want_dtype == "float16":
            return int(np.array(value, np.float16).view(np.uint16))
        if want_dtype == "bfloat16":  # round-to-nearest-even from float32
            bits = int(np.array(value, np.float32).view(np.uint32))
            if (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF:
                return (bits >> 16) | 0x40
            return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF
        return float(value)
    raise ArgumentTypeError(f"{label}: unsupported scalar dtype {want_dtype!r}")


class HostBuffer:
    """A host array argument as the kernel's memory holds it: ``data`` is C-contiguous (the
    caller's array itself when it can be, else a copy; packed when the caller passed elements of a
    packed parameter). :meth:`write_back` stores the kernel's result into the caller's array."""

    __slots__ = ("user", "data", "output", "bits")

    def __init__(self, user: np.ndarray, output: bool, bits: int, writable: bool):
        self.user, self.output, self.bits = user, output, bits
        if bits:
            data = pack(user, bits)
        elif user.flags.c_contiguous and (user.flags.writeable or not writable):
            data = user
        else:
            data = np.array(user, order="C")  # a writeable C-contiguous copy
        self.data = data

    def write_back(self, result: np.ndarray | None = None) -> None:
        """Store ``result`` (default: ``data``, as the kernel left it) into the caller's array,
        for an output buffer."""
        if not self.output:
            return
        result = self.data if result is None else result
        if self.bits:
            u = self.user
            u.view(np.uint8)[...] = unpack(result, self.bits, u.size).reshape(u.shape)
        elif result is not self.user:
            self.user[...] = result


class Signature:
    """One kernel's parameters as the backends check its arguments (errors name the parameter).

    ``written``: indices of the buffers the kernel may write (Artifact.outputs); ``written_names``
    their names (LaunchResult.outputs).
    """

    __slots__ = ("kernel", "params", "dtypes", "buffers", "written", "written_names", "_known")

    def __init__(self, kernel: str, params, outputs=None):
        self.kernel = kernel
        self.params = tuple(params)
        self.dtypes = tuple(normalize_dtype(p.dtype) for p in self.params)
        self.buffers = tuple(i for i, p in enumerate(self.params) if p.kind == "buffer")
        self._known = outputs is not None
        self.written = frozenset(i for i in self.buffers
                                 if outputs is None or self.params[i].name in outputs)
        self.written_names = frozenset(self.params[i].name for i in self.written)

    @staticmethod
    def of(artifact) -> "Signature":
        return Signature(artifact.kernel_name, artifact.params,
                         artifact.meta.get("outputs") if isinstance(artifact.meta, dict) else None)

    def label(self, index: int) -> str:
        return _label(self.kernel, index, self.params[index].name)

    def check_count(self, nargs: int) -> None:
        check_count(self.kernel, self.params, nargs)

    def unexpected(self, keywords) -> None:
        """Raise for keyword arguments that name no parameter."""
        names = ", ".join(p.name for p in self.params) or "none"
        raise ArgumentTypeError(f"{self.kernel}() got unexpected keyword argument(s) "
                                f"{', '.join(map(repr, keywords))} (parameters: {names})")

    def missing(self, indices) -> None:
        """Raise for parameters a call left out."""
        raise ArgumentTypeError(f"{self.kernel}() missing argument(s) "
                                f"{', '.join(repr(self.params[i].name) for i in indices)}")

    def buffer(self, index: int, obj) -> tuple[BufferView, int]:
        """(the checked view of buffer argument ``index``, element bits to pack: check_buffer)."""
        try:
            view = buffer_view(obj)
        except ArgumentError as e:
            raise type(e)(f"{self.label(index)}: {e}") from None
        bits = check_buffer(self.kernel, index, self.params[index], view, self.dtypes[index])
        if index in self.written and (view.readonly or (view.kind == "host"
                                                         and not view.host.flags.writeable)):
            why = "the kernel writes it" if self._known else \
                "the kernel may write it (its artifact does not record which buffers it writes)"
            raise ArgumentError(f"{self.label(index)}: the array is read-only, but {why}; pass a "
                                "writeable array")
        return view, bits

    def host(self, index: int, view: BufferView, bits: int, writable: bool = False) -> HostBuffer:
        """The HostBuffer of host buffer argument ``index`` (``writable``: ``data`` must be
        writeable even for an input, as the emulator writes every buffer back)."""
        return HostBuffer(view.host, index in self.written, bits, writable)

    def scalar(self, index: int, value):
        """The checked value of scalar argument ``index`` (see scalar_value)."""
        return scalar_value(self.kernel, index, self.params[index], value, self.dtypes[index])

    def by_name(self, args) -> dict:
        """Buffer arguments by parameter name (LaunchResult.buffers)."""
        return {self.params[i].name: args[i] for i in self.buffers}


# --------------------------------------------------------------------------- packing


class ParamPack:
    """The ``void* kernelParams[]`` array and one value slot per parameter, built once per kernel.

    Buffers occupy a c_uint64 (the device pointer), scalars a slot of their ctypes type; the driver
    copies the values at launch, so the slots may be refilled for the next call right away.
    """

    def __init__(self, params, dtypes: Sequence[str], extra: Sequence[int] = ()):
        """``extra``: addresses of further parameters' values, after ``params`` (tensor_map.MapSlots)."""
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
        addresses = [ctypes.addressof(s) for s in self.slots] + list(extra)
        n = len(addresses)
        self.array = (ctypes.c_void_p * max(n, 1))(*addresses)
        self.address = ctypes.addressof(self.array) if n else 0

    def values(self) -> list:
        return [s.value for s in self.slots]
