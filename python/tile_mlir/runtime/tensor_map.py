"""Tensor maps at launch (docs/tma.md §4): each of an Artifact's tensor maps (artifact.TensorMapParam) is
encoded for the device address of the array its buffer parameter receives, by the driver's
cuTensorMapEncodeTiled, into a 128-byte kernel-parameter slot; for tile-sim it becomes the emulator's
TensorMap, which takes the same parameters and never sees encoded bytes.

A slot is re-encoded only when its buffer's address (or, for a buffer with runtime extents, its shape)
changes (repeated launches on the same device arrays encode nothing), and encodings are kept per
(record, address), so staged host arrays that land at a recycled address reuse theirs.

A buffer with runtime extents (Param.dynamic, a `?` of its type) has its map's dims and strides taken
from the array given (at_shape): the record holds the largest extents only.
"""
from __future__ import annotations

import ctypes
import dataclasses
import math
from collections import OrderedDict

from . import driver as _d
from .dtypes import numpy_dtype
from .errors import ArgumentError

__all__ = ["MapSlots", "encode", "sim_tensor_map", "at_shape", "MAP_BYTES"]

MAP_BYTES = 128  # sizeof(CUtensorMap)
MAP_ALIGN = 64  # the driver's alignment of a CUtensorMap, and the .param's
_CACHE_SIZE = 256
_encoded: OrderedDict = OrderedDict()  # (TensorMapParam, address) -> 128 bytes

# our record's words -> cuda-bindings enum member names
_DATA_TYPES = {"uint8": "UINT8", "uint16": "UINT16", "uint32": "UINT32", "int32": "INT32", "uint64": "UINT64",
               "int64": "INT64", "float16": "FLOAT16", "float32": "FLOAT32", "float64": "FLOAT64",
               "bfloat16": "BFLOAT16"}
_SWIZZLES = {"none": "NONE", "32b": "32B", "64b": "64B", "128b": "128B"}
_L2 = {"none": "NONE", "64b": "L2_64B", "128b": "L2_128B", "256b": "L2_256B"}
_OOB = {"none": "NONE", "nan_request_zero_fma": "NAN_REQUEST_ZERO_FMA"}


def check_reach(tm, nbytes: int) -> None:
    """Refuse (ArgumentError) a map that describes bytes past the end of its buffer's `nbytes`: TMA would
    read, or store into, whatever memory follows (a crafted or stale manifest; compile() derives the map
    from the buffer's own shape)."""
    reach = tm.global_dim[0] * tm.elem_bytes + sum((d - 1) * s for d, s in zip(tm.global_dim[1:],
                                                                              tm.global_strides))
    if reach > nbytes:
        raise ArgumentError(f"tensor map of '{tm.buffer}': its dims {list(tm.global_dim)} and strides "
                            f"{list(tm.global_strides)} reach {reach} bytes, but the buffer holds {nbytes}")


def at_shape(tm, shape):
    """Record `tm` over a contiguous row-major array of `shape` (a buffer with runtime extents): its dims
    and byte strides from the shape; TMA's rule that strides are 16-byte multiples is checked here, as the
    verifier did for static shapes (dialect/checks.py tensor_map_problem)."""
    dims = tuple(int(n) for n in reversed(tuple(shape)))
    strides = tuple(tm.elem_bytes * math.prod(dims[:k + 1]) for k in range(len(dims) - 1))
    # (the rows' bytes, a stride unless the tensor has rank 1: a TMA store writes whole 16-byte chunks there)
    bad = next((s for s in (tm.elem_bytes * dims[0],) + strides if s % 16 or s >= 1 << 40), None)
    if bad is not None:
        raise ArgumentError(f"tensor map of '{tm.buffer}': an array of shape {tuple(shape)} has a row stride "
                            f"of {bad} bytes; TMA needs multiples of 16 below 2^40 (pad its rows)")
    if dims == tm.global_dim:
        return tm
    return dataclasses.replace(tm, global_dim=dims, global_strides=strides)


def _param_bytes(p) -> int:
    return math.prod(p.packed_shape) * (1 if p.bits else numpy_dtype(p.dtype).itemsize)


def encode(tm, address: int) -> bytes:
    """The 128 bytes cuTensorMapEncodeTiled makes of record `tm` over device address `address`."""
    key = (tm, address)
    blob = _encoded.get(key)
    if blob is not None:
        _encoded.move_to_end(key)
        return blob
    drv = _d.drv()
    m = _d.call("cuTensorMapEncodeTiled",
                getattr(drv.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{_DATA_TYPES[tm.data_type]}"),
                len(tm.global_dim), address, [drv.cuuint64_t(v) for v in tm.global_dim],
                [drv.cuuint64_t(v) for v in tm.global_strides], [drv.cuuint32_t(v) for v in tm.box_dim],
                [drv.cuuint32_t(v) for v in tm.element_strides],
                getattr(drv.CUtensorMapInterleave, f"CU_TENSOR_MAP_INTERLEAVE_{tm.interleave.upper()}"),
                getattr(drv.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{_SWIZZLES[tm.swizzle]}"),
                getattr(drv.CUtensorMapL2promotion, f"CU_TENSOR_MAP_L2_PROMOTION_{_L2[tm.l2_promotion]}"),
                getattr(drv.CUtensorMapFloatOOBfill, f"CU_TENSOR_MAP_FLOAT_OOB_FILL_{_OOB[tm.oob_fill]}"),
                detail=f"tensor map of '{tm.buffer}' at {address:#x}")
    blob = ctypes.string_at(m.getPtr(), MAP_BYTES)
    _encoded[key] = blob
    if len(_encoded) > _CACHE_SIZE:
        _encoded.popitem(last=False)
    return blob


class MapSlots:
    """The kernel-parameter slots of an Artifact's tensor maps, 64-byte aligned, in parameter order;
    ``addresses`` go into the kernel's ``void* kernelParams[]`` after its own parameters."""

    def __init__(self, maps, params):
        self.maps = tuple(maps)
        names = [p.name for p in params]
        self.buffers = tuple(names.index(tm.buffer) for tm in self.maps)  # the parameter each map describes
        self.dynamic = tuple(bool(params[i].dynamic) for i in self.buffers)
        for tm, i, dyn in zip(self.maps, self.buffers, self.dynamic):
            if not dyn:  # (a runtime-extent map is made from its array at launch: at_shape)
                check_reach(tm, _param_bytes(params[i]))
        n = len(self.maps)
        self._raw = (ctypes.c_uint8 * (MAP_BYTES * n + MAP_ALIGN))()
        base = -(-ctypes.addressof(self._raw) // MAP_ALIGN) * MAP_ALIGN
        self.addresses = [base + MAP_BYTES * i for i in range(n)]
        self._bound: list = [None] * n  # the address (with runtime extents: and shape) encoded

    def fill(self, slots, shapes=None) -> None:
        """Encode each map for the device address in its buffer's slot (args.ParamPack.slots) this launch;
        `shapes`: parameter index -> the array's shape, for the buffers with runtime extents."""
        for i, tm in enumerate(self.maps):
            ptr = slots[self.buffers[i]].value
            if self.dynamic[i]:
                shape = shapes[self.buffers[i]]
                bound = (ptr, tuple(shape))
                if bound != self._bound[i]:
                    ctypes.memmove(self.addresses[i], encode(at_shape(tm, shape), ptr), MAP_BYTES)
                    self._bound[i] = bound
            elif ptr != self._bound[i]:
                ctypes.memmove(self.addresses[i], encode(tm, ptr), MAP_BYTES)
                self._bound[i] = ptr


def sim_tensor_map(tm, array, dynamic: bool = False):
    """tile-sim's TensorMap of record `tm` over `array` (the very array given for its buffer parameter, so
    the map points into that allocation); `dynamic`: the buffer has runtime extents (at_shape)."""
    from tile_mlir.sim import TensorMap  # (late: import tile_mlir.runtime and tile-run --help load no tile-sim)

    if dynamic:
        tm = at_shape(tm, array.shape)
    check_reach(tm, array.nbytes)
    return TensorMap(data_type=tm.data_type, global_address=array, global_dim=tm.global_dim,
                     global_strides=tm.global_strides, box_dim=tm.box_dim, element_strides=tm.element_strides,
                     interleave=tm.interleave, swizzle=tm.swizzle, l2_promotion=tm.l2_promotion,
                     oob_fill=tm.oob_fill)
