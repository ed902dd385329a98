"""tile-sim's own tensor-map model: what ``cuTensorMapEncodeTiled`` is given, checked as the CUDA
driver documents it, and the addresses of a tile-mode box that the tensor memory accelerator (TMA)
visits, written from the CUDA driver API (cuda.h 13.0, ``cuTensorMapEncodeTiled``) and the PTX ISA
("Tensors": §5.5.3 tiled mode, §5.5.7 swizzling modes) on their own (docs/emulator.md §9).

A kernel receives a map as a 128-byte ``.param`` object the driver encoded; its bytes are opaque.
The emulator never decodes them: a :class:`TensorMap` is bound to such a parameter in ``run_ptx``'s
``args`` and the TMA handlers look it up by the parameter's address (handlers/tma.py).

Box geometry (tile mode, interleave NONE), for box coordinates ``c`` (one ``.s32`` per dimension,
dimension 0 innermost):

* dimension i visits ``n_i = ceil(boxDim[i] / elementStrides[i])`` elements at tensor coordinates
  ``c_i + k * elementStrides[i]``; ``elementStrides[0]`` is ignored (driver docs: dimension 0 is
  traversed with stride 1 without interleave; PTX §5.5.3.2);
* an element whose coordinate lies outside ``[0, globalDim[i])`` in any dimension is out of bounds:
  a load writes zero (or the OOB-NaN, A23) and a store skips it (PTX §5.5.3.3);
* in shared memory the box is dense, dimension 0 innermost, in rows of ``n_0 * elementSize`` bytes;
  with a swizzle of span S each row takes S bytes (A22), and every 16-byte chunk is moved by the
  swizzle of its *absolute* ``.shared::cta`` address (PTX §5.5.7; sim/swizzle.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import EmulationError
from .swizzle import SWIZZLE_128B, SWIZZLE_32B, SWIZZLE_64B, SWIZZLE_NONE, swizzle_np

# CUtensorMapDataType, in enum order: (name, bits per element, float)
DATA_TYPES = (("uint8", 8, False), ("uint16", 16, False), ("uint32", 32, False),
              ("int32", 32, False), ("uint64", 64, False), ("int64", 64, False),
              ("float16", 16, True), ("float32", 32, True), ("float64", 64, True),
              ("bfloat16", 16, True), ("float32_ftz", 32, True), ("tfloat32", 32, True),
              ("tfloat32_ftz", 32, True), ("16u4_align8b", 4, False),
              ("16u4_align16b", 4, False), ("16u6_align16b", 6, False))
INTERLEAVES = ("none", "16b", "32b")
SWIZZLES = ("none", "32b", "64b", "128b", "128b_atom_32b", "128b_atom_32b_flip_8b",
            "128b_atom_64b")
L2_PROMOTIONS = ("none", "64b", "128b", "256b")
OOB_FILLS = ("none", "nan_request_zero_fma")
#: the swizzles the driver allows for the packed types (16U6: 128B_ATOM_64B for stores only)
PACKED_SWIZZLES = {"16u6_align16b": ("none", "128b", "128b_atom_32b", "128b_atom_64b"),
                   "16u4_align16b": ("none", "128b", "128b_atom_32b")}
#: swizzle span S (bytes) of the modes tile-sim executes, and their sim/swizzle.py mode code
SWIZZLE_SPAN = {"none": 0, "32b": 32, "64b": 64, "128b": 128}
SWIZZLE_CODE = {"none": SWIZZLE_NONE, "32b": SWIZZLE_32B, "64b": SWIZZLE_64B,
                "128b": SWIZZLE_128B}
#: the bytes a load writes for an out-of-bounds element with oob_fill "nan_request_zero_fma": the
#: PTX ISA's "OOB-NaN" has no bit pattern there; the H200 writes 0x7FF7 in every 16-bit half
#: (A23, measured for 2-, 4- and 8-byte types)
OOB_NAN_HALF = 0x7FF7
#: tfloat32 loads: the NaN the H200 writes for every NaN input, whatever its sign (A28)
TF32_NAN = 0x7FFFE000
TENSOR_MAP_BYTES = 128


def _enum(value, names, what):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if 0 <= int(value) < len(names):
            return names[int(value)]
    elif isinstance(value, str) and value.lower() in names:
        return value.lower()
    raise EmulationError(f"cuTensorMapEncodeTiled: {what} {value!r} is not one of {names} "
                         f"(or their enum values 0..{len(names) - 1})")


def _ints(value, what, n=None):
    try:
        # integers only: int() would also take "6" (and a string "64" would pass as the sequence 6, 4)
        if isinstance(value, (str, bytes)) or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                       for v in value):
            raise TypeError
        out = tuple(int(v) for v in value)
    except TypeError:
        raise EmulationError(f"cuTensorMapEncodeTiled: {what} must be a sequence of integers, "
                             f"got {value!r}") from None
    if n is not None and len(out) != n:
        raise EmulationError(f"cuTensorMapEncodeTiled: {what} needs {n} entries (tensorRank "
                             f"{n if what != 'globalStrides' else n + 1}), got {len(out)}")
    return out


#: box geometry -> (offsets at coordinates 0, shared addresses, all in bounds), TensorMap.box's;
#: cleared past _BOXES_MAX elements in all (17 bytes each: about 70 MB)
_BOXES: dict = {}
_BOXES_MAX = 1 << 22


def _visit(counts, es, strides, coords, dims):
    """(byte offsets from globalAddress, in bounds) of the elements a box at ``coords`` visits,
    dimension 0 fastest (``dims`` None: bounds not computed)."""
    goff = np.zeros(1, dtype=np.int64)
    inb = np.ones(1, dtype=bool)
    # built dimension by dimension, outermost first, so dimension 0 varies fastest
    for i in reversed(range(len(counts))):
        x = coords[i] + es[i] * np.arange(counts[i], dtype=np.int64)
        goff = (goff[:, None] + (x * strides[i])[None, :]).reshape(-1)
        if dims is not None:
            inb = (inb[:, None] & ((x >= 0) & (x < dims[i]))[None, :]).reshape(-1)
    return goff, inb


@dataclass(frozen=True, init=False, eq=False)  # maps compare by identity, as their arrays do
class TensorMap:
    """The parameters of one ``cuTensorMapEncodeTiled`` call, validated as the driver does.

    ``global_address`` is the numpy array the map points into; ``offset`` bytes into it is the map's
    globalAddress.  When the same array object is also an argument of a pointer parameter of the
    launch, both name one global allocation; otherwise ``run_ptx`` allocates it (and writes it
    back) itself.  Dimensions, box and element strides are innermost first; ``global_strides`` are
    bytes, rank - 1 entries.  Enumerations take the lower-case names of ``DATA_TYPES`` etc. or the
    CUDA enum values.
    """
    data_type: str
    global_address: np.ndarray
    global_dim: tuple
    global_strides: tuple
    box_dim: tuple
    element_strides: tuple
    interleave: str
    swizzle: str
    l2_promotion: str
    oob_fill: str
    offset: int

    def __init__(self, data_type, global_address, global_dim, global_strides, box_dim,
                 element_strides=None, interleave="none", swizzle="none", l2_promotion="none",
                 oob_fill="none", offset=0):
        s = object.__setattr__
        s(self, "data_type", _enum(data_type, [d[0] for d in DATA_TYPES], "tensorDataType"))
        if not isinstance(global_address, np.ndarray):
            raise EmulationError(f"TensorMap: global_address must be the numpy array the map "
                                 f"points into, got {type(global_address).__name__}")
        s(self, "global_address", global_address)
        dims = _ints(global_dim, "globalDim")
        rank = len(dims)
        if not 1 <= rank <= 5:
            raise EmulationError(f"cuTensorMapEncodeTiled: tensorRank {rank} must be 1..5")
        s(self, "global_dim", dims)
        s(self, "global_strides", _ints(global_strides, "globalStrides", rank - 1))
        s(self, "box_dim", _ints(box_dim, "boxDim", rank))
        s(self, "element_strides", (1,) * rank if element_strides is None
          else _ints(element_strides, "elementStrides", rank))
        s(self, "interleave", _enum(interleave, INTERLEAVES, "interleave"))
        s(self, "swizzle", _enum(swizzle, SWIZZLES, "swizzle"))
        s(self, "l2_promotion", _enum(l2_promotion, L2_PROMOTIONS, "l2Promotion"))
        s(self, "oob_fill", _enum(oob_fill, OOB_FILLS, "oobFill"))
        if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
            raise EmulationError(f"TensorMap: offset must be an integer, got {offset!r}")
        s(self, "offset", int(offset))
        self._validate()

    # ------------------------------------------------------------------ derived
    @property
    def rank(self) -> int:
        return len(self.global_dim)

    @property
    def _type(self):
        return next(d for d in DATA_TYPES if d[0] == self.data_type)

    @property
    def elem_bits(self) -> int:
        return self._type[1]

    @property
    def elem_size(self) -> int:
        """Bytes per element (the packed 4- and 6-bit types have none: 0)."""
        return self._type[1] // 8

    @property
    def is_float(self) -> bool:
        return self._type[2]

    @property
    def counts(self) -> tuple:
        """Elements a box visits per dimension: ceil(boxDim / elementStrides), dimension 0 with
        stride 1 (interleave NONE)."""
        es = (1,) + self.element_strides[1:]
        return tuple(-(-b // e) for b, e in zip(self.box_dim, es))

    @property
    def box_bytes(self) -> int:
        """Bytes one box moves, out-of-bounds elements included: the tx-count of a load (A21)."""
        return int(np.prod(self.counts)) * self.elem_size

    @property
    def row_pitch(self) -> int:
        """Bytes between consecutive box rows in shared memory (A22)."""
        span = SWIZZLE_SPAN.get(self.swizzle, 0)
        return span if span else self.counts[0] * self.elem_size

    # ------------------------------------------------------------------ checks
    def _validate(self):
        def bad(rule):
            raise EmulationError(f"cuTensorMapEncodeTiled: {rule}")

        rank, esize = self.rank, self.elem_size
        packed = self.elem_bits < 8
        if self.interleave != "none" and rank < 3:
            bad(f"tensorRank {rank} must be >= 3 with interleave {self.interleave.upper()}")
        for i, d in enumerate(self.global_dim):
            if not 1 <= d <= 1 << 32:
                bad(f"globalDim[{i}] = {d} must be in 1..2^32")
        if self.data_type in ("16u4_align16b", "16u6_align16b") and self.global_dim[0] % 128:
            bad(f"globalDim[0] = {self.global_dim[0]} must be a multiple of 128 for "
                f"{self.data_type.upper()}")
        if self.data_type == "16u4_align8b" and self.global_dim[0] % 2:
            bad(f"globalDim[0] = {self.global_dim[0]} must be even for 16U4_ALIGN8B")
        smult = 32 if (self.interleave == "32b" or self.data_type in ("16u4_align16b",
                                                                      "16u6_align16b")) else 16
        for i, st in enumerate(self.global_strides):
            if st % smult or not 0 <= st < 1 << 40:
                bad(f"globalStrides[{i}] = {st} must be a multiple of {smult} and < 2^40")
        for i, b in enumerate(self.box_dim):
            if not 1 <= b <= 256:
                bad(f"boxDim[{i}] = {b} must be in 1..256")
        for i, e in enumerate(self.element_strides):
            if not 1 <= e <= 8:
                bad(f"elementStrides[{i}] = {e} must be in 1..8")
        if self.interleave == "none" and not packed and self.box_dim[0] * esize % 16:
            bad(f"boxDim[0] * elementSize = {self.box_dim[0] * esize} bytes must be a multiple "
                f"of 16 with interleave NONE")
        if self.data_type in ("16u4_align16b", "16u6_align16b") and self.box_dim[0] != 128:
            bad(f"boxDim[0] = {self.box_dim[0]} must be 128 for {self.data_type.upper()}")
        if self.interleave == "32b" and self.swizzle != "32b":
            bad(f"interleave 32B requires swizzle 32B, got {self.swizzle.upper()}")
        if self.interleave == "none" and self.swizzle != "none" and not packed:
            span = 32 if self.swizzle == "32b" else 64 if self.swizzle == "64b" else 128
            if self.box_dim[0] * esize > span:
                bad(f"boxDim[0] * elementSize = {self.box_dim[0] * esize} bytes must be <= "
                    f"{span} (the span of swizzle {self.swizzle.upper()})")
        allowed = PACKED_SWIZZLES.get(self.data_type)
        if allowed is not None and self.swizzle not in allowed:
            bad(f"swizzle {self.swizzle.upper()} is not supported for "
                f"{self.data_type.upper()} (only {', '.join(a.upper() for a in allowed)})")
        if self.data_type == "16u6_align16b" and self.interleave != "none":
            bad("16U6_ALIGN16B requires interleave NONE")
        if self.oob_fill != "none" and (not self.is_float or packed):
            bad(f"oobFill NAN_REQUEST_ZERO_FMA needs a floating-point tensorDataType, got "
                f"{self.data_type.upper()}")
        align = 32 if smult == 32 else 16
        if self.offset % align or self.offset < 0:
            bad(f"globalAddress (array + offset {self.offset}) must be {align}-byte aligned")
        a = self.global_address
        if not a.flags.c_contiguous:
            raise EmulationError("TensorMap: global_address must be a C-contiguous array")
        if a.dtype.hasobject:
            raise EmulationError("TensorMap: global_address holds Python objects, not bytes")

    def check_executable(self, what: str):
        """The subset tile-sim executes: tile mode without interleave, packed types or the
        128B_ATOM_* swizzles (refused by name rather than guessed)."""
        if self.interleave != "none":
            raise EmulationError(f"{what}: tensor maps with interleave {self.interleave.upper()} "
                                 f"are not emulated by tile-sim")
        if self.elem_bits < 8:
            raise EmulationError(f"{what}: the packed tensorDataType {self.data_type.upper()} is "
                                 f"not emulated by tile-sim")
        if self.swizzle not in SWIZZLE_SPAN:
            raise EmulationError(f"{what}: swizzle {self.swizzle.upper()} is not emulated by "
                                 f"tile-sim")

    def as_bytes(self):
        """A 16U4_ALIGN8B map as the UINT8 map of its bytes (dimension 0 halved): 16 elements
        packed in 8 bytes, in global and in shared memory alike (no padding), so a copy moves
        the packed bytes as they are. Box coordinates in dimension 0 halve likewise."""
        if self.data_type != "16u4_align8b" or self.element_strides[0] != 1 or self.box_dim[0] % 2:
            raise EmulationError(f"{self.data_type.upper()} as bytes needs 16U4_ALIGN8B with "
                                 f"an even boxDim[0] and elementStrides[0] = 1")
        return TensorMap("uint8", self.global_address, (self.global_dim[0] // 2,) +
                         self.global_dim[1:], self.global_strides, (self.box_dim[0] // 2,) +
                         self.box_dim[1:], self.element_strides, self.interleave, self.swizzle,
                         self.l2_promotion, self.oob_fill, self.offset)

    # ------------------------------------------------------------------ box geometry
    def box(self, coords, dst: int, bound0: int | None = None):
        """For box coordinates ``coords`` and the box's first shared byte ``dst`` (absolute
        ``.shared::cta`` address): per visited element, in the box's order (dimension 0 fastest),
        its byte offset from globalAddress, whether it is in bounds (dimension 0 up to ``bound0``,
        default globalDim[0]), and the absolute shared address of its first byte after the
        swizzle.  Arrays of shape (elements,)."""
        counts = self.counts
        es = (1,) + self.element_strides[1:]
        esize = self.elem_size
        strides = (esize,) + self.global_strides
        dims = (self.global_dim[0] if bound0 is None else bound0,) + self.global_dim[1:]
        # the offsets at coordinates 0 and the shared addresses depend on the geometry and dst alone
        # (a K loop moves the same boxes into the same ring slots): kept, read-only
        key = (counts, es, strides, self.row_pitch, self.swizzle, dst)
        hit = _BOXES.get(key)
        if hit is None:
            goff0, _ = _visit(counts, es, strides, (0,) * len(counts), None)
            n0 = counts[0]
            k = np.arange(goff0.size, dtype=np.int64)
            phys = swizzle_np(dst + (k // n0) * self.row_pitch + (k % n0) * esize,
                              SWIZZLE_CODE[self.swizzle])
            inside = np.ones(goff0.size, dtype=bool)
            for x in (goff0, phys, inside):
                x.flags.writeable = False
            if sum(h[0].size for h in _BOXES.values()) + goff0.size > _BOXES_MAX:
                _BOXES.clear()
            hit = _BOXES[key] = (goff0, phys, inside)
        goff0, phys, inside = hit
        goff = goff0 + sum(c * s for c, s in zip(coords, strides))
        if all(0 <= c and c + e * (n - 1) < d for c, e, n, d in zip(coords, es, counts, dims)):
            return goff, inside, phys
        return goff, _visit(counts, es, strides, coords, dims)[1], phys

    def fill_bytes(self) -> bytes:
        """The bytes of an out-of-bounds element a load writes."""
        if self.oob_fill == "none":
            return bytes(self.elem_size)
        return OOB_NAN_HALF.to_bytes(2, "little") * (self.elem_size // 2)

    def store_bound0(self) -> int:
        """Elements of dimension 0 a store writes: the row's bytes rounded up to 16, so the
        elements of its last 16-byte chunk past globalDim[0] are written too (A27, measured)."""
        return -(-self.global_dim[0] * self.elem_size // 16) * 16 // self.elem_size

    def convert_load(self, data: np.ndarray) -> np.ndarray:
        """What a load writes for the elements it read, (elements, elem_size) uint8: the bytes,
        except for the tfloat32 types, whose values are rounded to nearest even at 10 mantissa
        bits, NaNs becoming TF32_NAN, denormals kept, _ftz or not (A28, measured)."""
        if self.data_type not in ("tfloat32", "tfloat32_ftz"):
            return data
        w = np.ascontiguousarray(data).view("<u4").reshape(-1).astype(np.uint64)
        nan = (w & 0x7F800000 == 0x7F800000) & (w & 0x7FFFFF != 0)
        r = (w + 0xFFF + ((w >> 13) & 1)) & 0xFFFFE000  # carries into the exponent: to infinity
        r = np.where(nan, TF32_NAN, r).astype("<u4")
        return r.view(np.uint8).reshape(data.shape)
