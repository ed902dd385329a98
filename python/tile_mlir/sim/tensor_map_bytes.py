"""tile-sim's 128 bytes of a tensor map.

A CUtensorMap's bytes are opaque (the driver's format is not published), yet kernels copy maps as
bytes and edit them with tensormap.replace, whose values are the ISA's.  So tile-sim gives maps its
own byte format, :data:`LAYOUT`: a map bound to a kernel parameter is written in it
(binding.py), tensormap.replace edits it field by field (:func:`replace`, called by
handlers/tensormap_dev.py), and TMA decodes the 128 bytes it is pointed at (:func:`decode`), a map
a kernel built from zeroed bytes included.  Every field lies in the first 64 bytes, the rest is
zero: the maps NVIDIA's CuTe DSL encodes have zero words 8-15, and its grouped GEMM copies only a
map's first 64 bytes before editing it (docs/emulator.md W4).  Enumerations are stored as the
ISA's tensormap.replace values (:data:`ELEMTYPES`, ...), ``rank`` as the rank minus one, strides
in units of 16 bytes, box and element strides minus one; a value a field cannot hold (a stride not
a multiple of 16, a box of 0 or over 256, an element stride over 8) marks the map invalid, which
TMA reports where it uses it.  The layout itself is tile-sim's assumption, visible only to a kernel
that reads a map's bytes other than through PTX.
"""

from __future__ import annotations

import numpy as np

from .errors import EmulationError
from .tensor_map import TensorMap

TENSOR_MAP_BYTES = 128
#: tile-sim's byte layout of a map, little-endian, all in bytes 0-63: name -> (byte offset, number
#: of elements, bytes per element); how a value is stored: _STORE
LAYOUT = {"global_address": (0, 1, 8), "global_dim": (8, 5, 4), "global_stride": (28, 4, 5),
          "box_dim": (48, 5, 1), "element_stride": (53, 5, 1), "rank": (58, 1, 1),
          "elemtype": (59, 1, 1), "interleave_layout": (60, 1, 1), "swizzle_mode": (61, 1, 1),
          "swizzle_atomicity": (62, 1, 1), "fill_mode": (63, 1, 1), "l2_promotion": (63, 1, 1)}
_BITS = {"fill_mode": (0, 1), "l2_promotion": (1, 2)}  # byte 63: (first bit, width)
_INVALID = (63, 4)  # byte 63 bits 4-7: why a replace made the map invalid (0: valid)
_WHY = {1: "a global stride (globalStrides) that is not a multiple of 16 bytes",
        2: "a box dimension (boxDim) outside 1..256",
        3: "an element stride (elementStrides) outside 1..8"}
#: field -> (value -> stored, stored -> value, the invalid code when the value cannot be stored)
_STORE = {"global_stride": (lambda v: v >> 4, lambda x: x << 4, lambda v: 1 if v % 16 else 0),
          "box_dim": (lambda v: v - 1, lambda x: x + 1, lambda v: 0 if 1 <= v <= 256 else 2),
          "element_stride": (lambda v: v - 1, lambda x: x + 1, lambda v: 0 if 1 <= v <= 8 else 3)}
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
    vals = {"global_address": gaddr, "global_dim": tm.global_dim,
            "global_stride": tm.global_strides, "box_dim": tm.box_dim,
            "element_stride": tm.element_strides, "rank": r - 1,
            "elemtype": ELEMTYPES.index(tm.data_type),
            "interleave_layout": INTERLEAVES.index(tm.interleave),
            "swizzle_mode": 3 if sw.startswith("128b") else SWIZZLES.index(sw),
            "swizzle_atomicity": atom, "fill_mode": FILLS.index(tm.oob_fill),
            "l2_promotion": L2.index(tm.l2_promotion)}
    buf = bytearray(TENSOR_MAP_BYTES)
    for name, v in vals.items():
        for k, x in enumerate(v if isinstance(v, (list, tuple)) else (v,)):
            replace(buf, name, k, int(x))
    return bytes(buf)


def replace(buf: bytearray, name: str, k: int, v: int) -> None:
    """Store value ``v`` (the ISA's tensormap.replace value) as element ``k`` of field ``name``."""
    off, n, size = LAYOUT[name]
    assert 0 <= k < n, (name, k)
    if name in _BITS:
        b, w = _BITS[name]
        buf[off] = (buf[off] & ~(((1 << w) - 1) << b)) | ((v & ((1 << w) - 1)) << b)
        return
    store = _STORE.get(name)
    if store is not None:
        why = store[2](v)
        if why:
            buf[_INVALID[0]] = (buf[_INVALID[0]] & 0x0F) | (why << _INVALID[1])
        v = store[0](v)
    o = off + k * size
    buf[o:o + size] = (v & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


def fields(raw: bytes) -> dict:
    """name -> value (a tuple for the per-dimension fields) of tile-sim's bytes of a map."""
    out = {}
    for name, (off, n, size) in LAYOUT.items():
        if name in _BITS:
            b, w = _BITS[name]
            out[name] = (raw[off] >> b) & ((1 << w) - 1)
            continue
        dec = _STORE[name][1] if name in _STORE else (lambda x: x)
        vals = tuple(dec(int.from_bytes(raw[off + k * size:off + (k + 1) * size], "little"))
                     for k in range(n))
        out[name] = vals if n > 1 else vals[0]
    return out


def decode(raw: bytes, what: str) -> tuple[TensorMap, int]:
    """(map, its globalAddress) of 128 bytes in tile-sim's layout, validated as the driver
    validates an encode (a map a kernel built wrongly faults where TMA uses it); ``what`` names
    the bytes in errors."""
    hit = _DECODED.get(raw)
    if hit is not None:
        return hit
    f = fields(raw)
    r = f["rank"] + 1
    why = raw[_INVALID[0]] >> _INVALID[1]
    if why:
        raise EmulationError(f"{what} are no valid tensor map: tensormap.replace wrote "
                             f"{_WHY.get(why, 'an invalid value')}")
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
