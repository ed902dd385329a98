"""`!tile.buffer<scope, shape x dtype[, "layout"][, align N][, packing P]>`: the tile dialect's one type.

The bindings cannot register new types, so a buffer type is an MLIR opaque type of the `tile` namespace
whose body we parse and print here. Examples:

    !tile.buffer<global, 32x16xui8>
    !tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>
    !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
    !tile.buffer<reg, 128x64xf32, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">

A `reg` buffer is a register tile: its layout (required) says which thread (warpid, laneid) holds each
element and in which register slot (`reg`), docs/registers.md §1.

The layout text is the seed's notation (see tile_mlir.layout); a global or shared buffer without one is
row-major over its shape. The element type is spelled as in MLIR (ui8, i32, bf16, f8E4M3FN, ...).

Sub-byte storage. Elements narrower than a byte are packed contiguously, low bits first, unless the type
names a packing. 6-bit elements cannot be split into 128-bit pieces that way (16 bytes hold 21.3 of
them), so shared memory keeps them in the PTX sub-byte form `.b6x16_p32` (PTX ISA "Padding and
Alignment of the Sub-byte Types", what TMA writes for CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B):

    !tile.buffer<shared, 32x32xf6E3M2FN, "S[(32, 32) : (32, 1)]", align 1024, packing b6x16_p32>

Element slot e of the layout lives in 16-byte group e / 16, at bits [6 (e % 16), 6 (e % 16) + 6) of
the group's first 12 bytes; the last 4 bytes are padding. In tensor memory a 6-bit element always
occupies an 8-bit container (the only tmem form of 6-bit data, PTX "Packing format used for matrix A
by .kind::mxf8f6f4 in Tensor Memory"), so tmem addresses count it as 8 bits.

4-bit elements may take the padded form `.b4x16_p64` likewise (16 elements in a group's first 8
bytes, low nibble first, then 8 bytes of padding: CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B), which
tcgen05.cp decompresses into 8-bit tmem containers (`.b8x16.b4x16_p64`); packed 4-bit data is copied
as it is (docs/tcgen05.md §8).

Runtime extents. A global buffer (a kernel parameter) may leave dims to the launch, as `?`:

    !tile.buffer<global, ?x?xbf16>

Such a buffer is row-major; its extents are those of the array given at launch, up to DYNAMIC_EXTENT
(i32 sizes and coordinates), and it is reached only through TMA (tile.tensor_map, encoded at launch from
the array; docs/tma.md §4), since its row strides are unknown when the kernel is compiled. `shape` holds
DYNAMIC_EXTENT for such a dim (the largest extent the kernel accepts: region checks hold against it),
`dynamic` the dims' indices. The kernel takes the sizes it computes with as i32 parameters.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from ..errors import TileMLIRError
from ..mlir import ir
from .enums import MemScope
from ..layout import S, parse_layout

__all__ = ["BufferType", "TypeParseError", "SCOPES", "element_bits", "numpy_dtype", "is_tile_type", "DYNAMIC_EXTENT"]

SCOPES = tuple(MemScope)  # (in the order the IRDL and the docs list them)
# Far above any alignment PTX asks of a buffer (a 128B swizzle repeats every 1024 bytes) and within
# what LLVM globals can carry (2^32): a larger `align N` is a typo, not a request.
MAX_ALIGN = 1 << 16
# A buffer's byte offsets are signed 64-bit (LLVM's getelementptr indices): 2^63 bytes at most.
MAX_BUFFER_BITS = 1 << 66
# The largest extent of a runtime (`?`) dim: sizes, tile counts and TMA coordinates are i32 in the kernel.
DYNAMIC_EXTENT = (1 << 31) - 1

# element type spelling -> (bits, numpy dtype name of its elements in Python; the narrow floats are
# ml_dtypes' dtypes, see runtime/dtypes.py)
_ELEMENTS = {
    "i1": (1, "bool"),
    "i4": (4, "uint8"), "ui4": (4, "uint8"), "si4": (4, "uint8"), "f4E2M1FN": (4, "float4_e2m1fn"),
    "i6": (6, "uint8"), "f6E2M3FN": (6, "float6_e2m3fn"), "f6E3M2FN": (6, "float6_e3m2fn"),
    "i8": (8, "int8"), "si8": (8, "int8"), "ui8": (8, "uint8"),
    "f8E4M3FN": (8, "float8_e4m3fn"), "f8E5M2": (8, "float8_e5m2"),
    "f8E8M0FNU": (8, "float8_e8m0fnu"),
    "i16": (16, "int16"), "si16": (16, "int16"), "ui16": (16, "uint16"),
    "f16": (16, "float16"), "bf16": (16, "bfloat16"),
    "i32": (32, "int32"), "si32": (32, "int32"), "ui32": (32, "uint32"), "f32": (32, "float32"),
    "i64": (64, "int64"), "si64": (64, "int64"), "ui64": (64, "uint64"), "f64": (64, "float64"),
}


def element_bits(elem: str) -> int:
    return _ELEMENTS[elem][0]


def numpy_dtype(elem: str) -> str:
    return _ELEMENTS[elem][1]


# packing -> (element bits, elements per group, bytes per group)
PACKINGS = {"b6x16_p32": (6, 16, 16), "b4x16_p64": (4, 16, 16)}


class TypeParseError(TileMLIRError, ValueError):
    """A malformed !tile.buffer body; the message says what was expected."""


_BODY = re.compile(r"^buffer<(?P<body>.*)>$", re.S)
_SHAPE = re.compile(r"^(?P<dims>(?:(?:\d+|\?)x)+)(?P<elem>[A-Za-z][A-Za-z0-9]*)$")


def _split_top(body: str) -> list[str]:
    """Split on commas outside quotes."""
    parts, cur, quoted = [], [], False
    for ch in body:
        if ch == '"':
            quoted = not quoted
        if ch == "," and not quoted:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur).strip())
    return parts


@dataclass(frozen=True)
class BufferType:
    scope: MemScope
    shape: tuple[int, ...]
    elem: str
    layout_text: str | None = None
    align: int | None = None
    packing: str | None = None
    dynamic: tuple[int, ...] = ()  # indices of the runtime (`?`) dims; their `shape` entry is DYNAMIC_EXTENT

    # -- text --------------------------------------------------------------------------------------
    @staticmethod
    def parse_body(data: str) -> "BufferType":
        m = _BODY.match(data.strip())
        if not m:
            raise TypeParseError(f"expected 'buffer<...>', got '{data}'")
        parts = _split_top(m.group("body"))
        if len(parts) < 2:
            raise TypeParseError("expected '<scope>, <shape>x<element type>'")
        try:
            scope = MemScope(parts[0])
        except ValueError:
            raise TypeParseError(f"unknown buffer scope '{parts[0]}' (expected one of {', '.join(SCOPES)})") from None
        sm = _SHAPE.match(parts[1])
        if not sm:
            raise TypeParseError(f"expected a shape like 32x16xui8, got '{parts[1]}'")
        dims = [d for d in sm.group("dims").split("x") if d]
        dynamic = tuple(i for i, d in enumerate(dims) if d == "?")
        shape = tuple(DYNAMIC_EXTENT if d == "?" else int(d) for d in dims)
        elem = sm.group("elem")
        if elem not in _ELEMENTS:
            raise TypeParseError(f"unsupported element type '{elem}'")
        if any(d <= 0 for d in shape):
            raise TypeParseError(f"buffer dimensions must be positive, got {parts[1]}")
        numel = 1
        for i, d in enumerate(shape):
            numel *= 1 if i in dynamic else d
        if numel * _ELEMENTS[elem][0] > MAX_BUFFER_BITS:
            raise TypeParseError(f"a {parts[1]} buffer holds more than 2^63 bytes, beyond 64-bit byte offsets")
        layout, align, packing = None, None, None
        for p in parts[2:]:
            if p.startswith('"') and p.endswith('"') and len(p) >= 2 and layout is None:
                layout = p[1:-1]
            elif p.startswith("align ") and align is None:
                try:
                    align = int(p[len("align "):])
                except ValueError:
                    raise TypeParseError(f"expected 'align <bytes>', got '{p}'") from None
                if align <= 0 or align & (align - 1):
                    raise TypeParseError(f"alignment must be a power of two, got {align}")
                if align > MAX_ALIGN:
                    raise TypeParseError(f"alignment must be at most {MAX_ALIGN} bytes, got {align}")
            elif p.startswith("packing ") and packing is None:
                packing = p[len("packing "):].strip()
                if packing not in PACKINGS:
                    raise TypeParseError(f"unknown packing '{packing}' (known: {', '.join(PACKINGS)})")
            else:
                raise TypeParseError(f"unexpected '{p}' in buffer type "
                                     "(expected a quoted layout, 'align N' or 'packing P')")
        if dynamic and (scope != MemScope.GLOBAL or layout is not None or packing is not None
                        or _ELEMENTS[elem][0] < 8):
            raise TypeParseError(f"runtime extents ('?') are for row-major global buffers of whole-byte "
                                 f"elements (a kernel parameter reached by TMA), got '{data.strip()}'")
        return BufferType(scope, shape, elem, layout, align, packing, dynamic)

    def __post_init__(self):
        if not isinstance(self.scope, MemScope):  # (a spelling given by Python code: its member)
            object.__setattr__(self, "scope", MemScope(self.scope))

    @property
    def shape_text(self) -> str:
        """The shape as the type spells it: `?` for a runtime dim."""
        return "x".join("?" if i in self.dynamic else str(d) for i, d in enumerate(self.shape))

    def body(self) -> str:
        s = f"buffer<{self.scope}, {self.shape_text}x{self.elem}"
        if self.layout_text is not None:
            s += f', "{self.layout_text}"'
        if self.align is not None:
            s += f", align {self.align}"
        if self.packing is not None:
            s += f", packing {self.packing}"
        return s + ">"

    def __str__(self) -> str:
        return "!tile." + self.body()

    # -- MLIR --------------------------------------------------------------------------------------
    @staticmethod
    def of(t) -> "BufferType | None":
        """The BufferType of an MLIR type, or None if it is not a !tile.buffer (parse errors raise)."""
        if not isinstance(t, ir.OpaqueType):
            try:
                t = ir.OpaqueType(t)
            except (ValueError, TypeError):
                return None
        if t.dialect_namespace != "tile" or not t.data.startswith("buffer"):
            return None
        return _parse_cached(t.data)

    def to_mlir(self, context=None):
        return ir.OpaqueType.get("tile", self.body(), context=context)

    # -- derived -----------------------------------------------------------------------------------
    @property
    def elem_bits(self) -> int:
        return element_bits(self.elem)

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def addr_bits(self) -> int:
        """Bits an element occupies in address arithmetic. A packed group counts as one byte per
        element (16 elements in 16 bytes), so whole groups are addressed as 8-bit elements; a 6-bit
        element in tmem fills an 8-bit container."""
        if self.packing is not None or (self.scope is MemScope.TMEM and self.elem_bits == 6):
            return 8
        return self.elem_bits

    def storage_bytes(self, slots: int) -> int:
        """Bytes that hold element slots [0, slots)."""
        if self.packing is not None:
            _, n, nb = PACKINGS[self.packing]
            return -(-slots // n) * nb
        return (slots * self.addr_bits + 7) // 8

    @property
    def nbytes(self) -> int:
        return self.storage_bytes(self.numel)

    @property
    def numpy_dtype(self) -> str:
        return numpy_dtype(self.elem)

    @cached_property
    def layout(self):
        """The parsed layout (raises tile_mlir.layout.LayoutError); row-major when none is written."""

        if self.layout_text is None:
            return S[tuple(self.shape)]
        return parse_layout(self.layout_text)


def is_tile_type(t) -> bool:
    """Whether MLIR type t is of the tile namespace: a !tile.buffer, or what a misspelt one parses as."""
    return isinstance(t, ir.OpaqueType) and t.dialect_namespace == "tile"


_cache: dict[str, BufferType] = {}


def _parse_cached(data: str) -> BufferType:
    bt = _cache.get(data)
    if bt is None:
        bt = _cache[data] = BufferType.parse_body(data)
    return bt
