"""tile-sim's 128 bytes of a tensor map.

A CUtensorMap's bytes are opaque (the driver's format is not published), yet kernels copy maps as
bytes and edit them with tensormap.replace, whose values are the ISA's.  So tile-sim gives maps its
own byte format, :data:`LAYOUT`: a map bound to a kernel parameter is written in it
(binding.py), tensormap.replace edits it field by field (handlers/tensormap_dev.py), and TMA
decodes the 128 bytes it is pointed at (:func:`decode`), a map a kernel built from zeroed bytes
included.  Enumerations are stored as the ISA's tensormap.replace values (:data:`ELEMTYPES`, ...),
``rank`` as the rank minus one, strides in bytes.  The layout itself is tile-sim's assumption
(docs/emulator.md), visible only to a kernel that reads a map's bytes other than through PTX.
"""

from __future__ import annotations

import struct

import numpy as np

from .errors import EmulationError
from .tensor_map import TensorMap

TENSOR_MAP_BYTES = 128
#: tile-sim's byte layout of a map (little-endian): name -> (byte offset, struct format)
LAYOUT = {"global_address": (0, "<Q"), "global_dim": (8, "<5I"), "global_stride": (28, "<4Q"),
          "box_dim": (60, "<5H"), "element_stride": (70, "<5B"), "rank": (75, "<B"),
          "elemtype": (76, "<B"), "interleave_layout": (77, "<B"), "swizzle_mode": (78, "<B"),
          "swizzle_atomicity": (79, "<B"), "fill_mode": (80, "<B"), "l2_promotion": (81, "<B")}
#: the ISA's .elemtype values, in order, as tensor_map.DATA_TYPES names them
ELEMTYPES = ("uint8", "uint16", "uint32", "int32", "uint64", "int64", "float16", "float32",
             "float32_ftz", "float64", "bfloat16", "tfloat32", "tfloat32_ftz", "16u4_align8b",
             "16u4_align16b", "16u6_align16b")
INTERLEAVES = ("none", "16b", "32b")
SWIZZLES = ("none", "32b", "64b", "128b")  # .swizzle_mode 0-3 (4, 96B, is not emulated)
#: .swizzle_atomicity with a 128B swizzle -> the driver's swizzle name
ATOMICITY = {0: "128b", 1: "128b_atom_32b", 2: "128b_atom_32b_flip_8b", 3: "128b_atom_64b"}
FILLS = ("none", "nan_request_zero_fma")
L2 = ("none", "64b", "128b", "256b")
FIELD1 = ("global_address", "rank")
FIELD2 = ("box_dim", "global_dim", "global_stride", "element_stride")
FIELD3 = ("elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode")
_EMPTY = np.zeros(0, np.uint8)
_DECODED: dict = {}


def encode(tm: TensorMap, gaddr: int) -> bytes:
    """tile-sim's 128 bytes of ``tm`` pointing at global address ``gaddr``."""
    r = tm.rank
    sw = tm.swizzle
    atom = next((k for k, v in ATOMICITY.items() if v == sw), 0) if sw.startswith("128b") else 0
    vals = {"global_address": gaddr, "global_dim": _pad(tm.global_dim, 5),
            "global_stride": _pad(tm.global_strides, 4), "box_dim": _pad(tm.box_dim, 5),
            "element_stride": _pad(tm.element_strides, 5), "rank": r - 1,
            "elemtype": ELEMTYPES.index(tm.data_type),
            "interleave_layout": INTERLEAVES.index(tm.interleave),
            "swizzle_mode": 3 if sw.startswith("128b") else SWIZZLES.index(sw),
            "swizzle_atomicity": atom, "fill_mode": FILLS.index(tm.oob_fill),
            "l2_promotion": L2.index(tm.l2_promotion)}
    buf = bytearray(TENSOR_MAP_BYTES)
    for name, (off, fmt) in LAYOUT.items():
        v = vals[name]
        struct.pack_into(fmt, buf, off, *(v if isinstance(v, (list, tuple)) else (v,)))
    return bytes(buf)


def _pad(xs, n):
    return list(xs) + [0] * (n - len(xs))


def fields(raw: bytes) -> dict:
    return {name: (struct.unpack_from(fmt, raw, off) if len(fmt) > 2 and fmt[1].isdigit()
                   else struct.unpack_from(fmt, raw, off)[0]) for name, (off, fmt) in LAYOUT.items()}


def decode(raw: bytes, what: str) -> tuple[TensorMap, int]:
    """(map, its globalAddress) of 128 bytes in tile-sim's layout, validated as the driver
    validates an encode (a map a kernel built wrongly faults where TMA uses it); ``what`` names
    the bytes in errors."""
    hit = _DECODED.get(raw)
    if hit is not None:
        return hit
    f = fields(raw)
    r = f["rank"] + 1
    try:
        dt = ELEMTYPES[f["elemtype"]]
        sw = SWIZZLES[f["swizzle_mode"]]
        if sw == "128b":
            sw = ATOMICITY[f["swizzle_atomicity"]]
        il, fill, l2 = INTERLEAVES[f["interleave_layout"]], FILLS[f["fill_mode"]], L2[f["l2_promotion"]]
    except (IndexError, KeyError):
        raise EmulationError(f"{what} (a tensor map in tile-sim's layout) hold a field outside "
                             f"the ISA's values ({f})") from None
    if not 1 <= r <= 5:
        raise EmulationError(f"{what} (a tensor map in tile-sim's layout) give rank {r}")
    try:
        tm = TensorMap(dt, _EMPTY, f["global_dim"][:r], f["global_stride"][:r - 1],
                       f["box_dim"][:r], f["element_stride"][:r], il, sw, l2, fill)
    except EmulationError as e:
        raise EmulationError(f"{what} are no valid tensor map (edited by tensormap.replace or "
                             f"built by the kernel): {e}") from None
    if f["global_address"] % 16:
        raise EmulationError(f"{what} give global address 0x{f['global_address']:x}, not "
                             f"16-byte aligned")
    hit = _DECODED[raw] = (tm, f["global_address"])
    if len(_DECODED) > 4096:
        _DECODED.pop(next(iter(_DECODED)))
    return hit
