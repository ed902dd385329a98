"""The 64-bit tcgen05 shared-memory matrix descriptor, decoded from the PTX ISA table
("Shared memory descriptor", tcgen05 form):

    bits  0..13  start address >> 4        bits 14..15 reserved 0
    bits 16..29  leading byte offset >> 4  bits 30..31 reserved 0
    bits 32..45  stride byte offset >> 4
    bits 46..48  fixed 0b001 (0b000 read as 0b001 and reported: :func:`unversioned`)
    bits 49..51  matrix base offset
    bit  52      LBO mode (0 relative, 1 absolute; sm_103a only)
    bits 53..60  fixed 0
    bits 61..63  swizzle mode: 0 none, 1 128B with 32B atomicity, 2 128B, 4 64B, 6 32B

Decoding never raises; :func:`check_for_cp` reports every field ``tcgen05.cp`` on sm_100a cannot
accept.  Independent of the rest of tile_mlir on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass

from .swizzle import MODE_NAMES, REPEAT, ROW_PITCH

VALID_MODES = (0, 1, 2, 4, 6)


@dataclass(frozen=True)
class SmemDescriptor:
    raw: int
    start: int  # bytes (field << 4)
    lbo: int  # bytes (field << 4)
    sbo: int  # bytes (field << 4)
    fixed_46_48: int  # must be 0b001
    base_offset: int
    lbo_mode: int
    swizzle: int
    reserved: int  # OR of the reserved fields (14-15, 30-31, 53-60), must be 0

    @property
    def swizzle_name(self) -> str:
        return MODE_NAMES.get(self.swizzle, f"invalid({self.swizzle})")

    def __str__(self) -> str:
        return (f"desc 0x{self.raw:016x} (start 0x{self.start:x}, LBO {self.lbo}, SBO {self.sbo}, "
                f"bits46-48 0b{self.fixed_46_48:03b}, base_offset {self.base_offset}, "
                f"lbo_mode {self.lbo_mode}, swizzle {self.swizzle_name})")


def decode(desc: int) -> SmemDescriptor:
    d = desc & 0xFFFF_FFFF_FFFF_FFFF
    reserved = ((d >> 14) & 3) | ((d >> 30) & 3) | ((d >> 53) & 0xFF)
    return SmemDescriptor(
        raw=d,
        start=(d & 0x3FFF) << 4,
        lbo=((d >> 16) & 0x3FFF) << 4,
        sbo=((d >> 32) & 0x3FFF) << 4,
        fixed_46_48=(d >> 46) & 7,
        base_offset=(d >> 49) & 7,
        lbo_mode=(d >> 52) & 1,
        swizzle=(d >> 61) & 7,
        reserved=reserved,
    )


def encode(start: int, lbo: int, sbo: int, swizzle: int = 0, base_offset: int = 0,
           lbo_mode: int = 0) -> int:
    """Encode byte values (each 16-byte aligned, < 256 KiB) into a descriptor with bit 46 set."""
    for name, v in (("start", start), ("lbo", lbo), ("sbo", sbo)):
        if v % 16 or not 0 <= v < (1 << 18):
            raise ValueError(f"{name}={v} is not a 16-byte aligned value below 256 KiB")
    if swizzle not in VALID_MODES:
        raise ValueError(f"invalid swizzle mode {swizzle}")
    return ((start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | 1 << 46
            | (base_offset & 7) << 49 | (lbo_mode & 1) << 52 | swizzle << 61)


#: the ISA rule a descriptor with bits 46-48 = 0b000 breaks (a finding, sim/findings.py)
VERSION_RULE = "smem-descriptor-version"


def unversioned(d: SmemDescriptor) -> bool:
    """Bits 46-48 are 0b000 where the ISA fixes 0b001.  Triton before 3.6 builds every tcgen05
    descriptor so, and its kernels run on sm_100a silicon: tile-sim reads such a descriptor as the
    0b001 layout and the handler reports the broken rule (docs/emulator.md A52)."""
    return d.fixed_46_48 == 0


def _version_errors(d: SmemDescriptor) -> list[str]:
    if d.fixed_46_48 in (0, 1):
        return []
    return [f"bits 46-48 must be 0b001 (fixed version field), got 0b{d.fixed_46_48:03b}: no "
            f"layout is known for it (0b000 is read as 0b001, docs/emulator.md A52)"]


def version_message(d: SmemDescriptor, what: str) -> str:
    return (f"{what} descriptor 0x{d.raw:016x} has bits 46-48 = 0b000; the PTX ISA (tcgen05 "
            f"shared memory descriptor) fixes them at 0b001. tile-sim reads it as 0b001, as "
            f"sm_100a is assumed to (docs/emulator.md A52)")


def check_for_cp(d: SmemDescriptor) -> list[str]:
    """Reasons why ``tcgen05.cp`` on sm_100a cannot use descriptor ``d`` (empty list: usable).

    Policy (docs/emulator.md A7 and A8; docs/tcgen05.md §4, §5): base offset must be 0 and a
    swizzled pattern must start with zero swizzle-phase bits (address bits 7.. inside the repeat),
    because the hardware's use of the base offset field is undocumented; mode 1 (128B_base32B) is
    undocumented for cp.
    """
    errs = _version_errors(d)
    if d.reserved:
        errs.append("reserved bits (14-15, 30-31 or 53-60) are not zero")
    if d.swizzle not in VALID_MODES:
        errs.append(f"swizzle mode {d.swizzle} is invalid (valid: 0, 1, 2, 4, 6)")
    elif d.swizzle == 1:
        errs.append("swizzle mode 1 (128B_base32B) is unsupported/undocumented for tcgen05.cp")
    if d.lbo_mode:
        errs.append("LBO mode bit 52 = 1 (absolute LBO) is supported only on sm_103a, not sm_100a")
    if d.swizzle in (2, 4, 6):
        if d.base_offset:
            errs.append(f"non-zero base offset {d.base_offset} with swizzle {d.swizzle_name}: "
                        "hardware use of the field is undefined/unverified (docs/emulator.md A7)")
        phase = d.start % REPEAT[d.swizzle]
        if phase // 128:
            errs.append(f"start address 0x{d.start:x} is not at a row-0 position of its "
                        f"{d.swizzle_name} swizzle repeat ({REPEAT[d.swizzle]} B) and base offset "
                        "is 0: undefined/unverified (docs/emulator.md A7)")
    return errs


def row_pitch(mode: int) -> int:
    return ROW_PITCH[mode]


# ------------------------------------------------------------------------------- sm_90 (wgmma)
#: the sm_90 descriptor's 2-bit swizzle code (bits 62..63) -> the swizzle mode code of swizzle.py
SM90_SWIZZLE = {0: 0, 1: 2, 2: 4, 3: 6}


@dataclass(frozen=True)
class Sm90Descriptor:
    """The 64-bit wgmma matrix descriptor (PTX ISA "Matrix Descriptor Format", wgmma form):

        bits  0..13  start address >> 4        bits 16..29  leading byte offset >> 4
        bits 32..45  stride byte offset >> 4   bits 49..51  matrix base offset
        bits 62..63  swizzle: 0 none, 1 128B, 2 64B, 3 32B; every other bit unused (0)

    ``swizzle`` is kept as swizzle.py's mode code (the tcgen05 3-bit code: the 2-bit codes 1/2/3
    are the 3-bit codes 2/4/6 one bit higher), so both descriptor forms feed one operand reader."""
    raw: int
    start: int
    lbo: int
    sbo: int
    base_offset: int
    swizzle: int
    reserved: int  # OR of the unused bits (14-15, 30-31, 46-48, 52-61), must be 0

    @property
    def swizzle_name(self) -> str:
        return MODE_NAMES[self.swizzle]

    def __str__(self) -> str:
        return (f"sm_90 desc 0x{self.raw:016x} (start 0x{self.start:x}, LBO {self.lbo}, "
                f"SBO {self.sbo}, base_offset {self.base_offset}, swizzle {self.swizzle_name})")


def decode_sm90(desc: int) -> Sm90Descriptor:
    d = desc & 0xFFFF_FFFF_FFFF_FFFF
    reserved = ((d >> 14) & 3) | ((d >> 30) & 3) | ((d >> 46) & 7) | ((d >> 52) & 0x3FF)
    return Sm90Descriptor(raw=d, start=(d & 0x3FFF) << 4, lbo=((d >> 16) & 0x3FFF) << 4,
                          sbo=((d >> 32) & 0x3FFF) << 4, base_offset=(d >> 49) & 7,
                          swizzle=SM90_SWIZZLE[(d >> 62) & 3], reserved=reserved)


def check_for_mma(d) -> list[str]:
    """Reasons why an MMA (wgmma with an :class:`Sm90Descriptor`, tcgen05.mma with a
    :class:`SmemDescriptor`) cannot use descriptor ``d`` as tile-sim reads it.  A non-zero base
    offset is declined: its effect is defined only for patterns that do not start on their repeat,
    which no source we know builds (docs/emulator.md A30)."""
    errs = []
    if isinstance(d, SmemDescriptor):
        errs += _version_errors(d)
        if d.swizzle not in VALID_MODES:
            errs.append(f"swizzle mode {d.swizzle} is invalid (valid: 0, 1, 2, 4, 6)")
        if d.lbo_mode:
            errs.append("LBO mode bit 52 = 1 (absolute LBO) is supported only on sm_103a")
        if d.reserved:
            errs.append("reserved bits (14-15, 30-31 or 53-60) are not zero")
    elif d.reserved:
        errs.append("unused bits (14-15, 30-31, 46-48 or 52-61) are not zero (bit 46 is the "
                    "tcgen05 descriptor's version field, not part of the sm_90 form)")
    if d.base_offset:
        errs.append(f"non-zero matrix base offset {d.base_offset} is not modelled "
                    f"(docs/emulator.md A30)")
    return errs


# ------------------------------------------------------------------------------- tcgen05 idesc
BLOCK_SCALED_KINDS = ("mxf8f6f4", "mxf4", "mxf4nvf4")


@dataclass(frozen=True)
class InstrDescriptor:
    """The 32-bit tcgen05.mma instruction descriptor (PTX ISA "Instruction descriptor", Tables 42
    (tf32, f16, f8f6f4, i8), 43 (mxf8f6f4) and 44 (mxf4, mxf4nvf4)), decoded for one kind.

    Table 42: 0-1 sparsity selector, 2 sparse, 3 saturate, 4-5 dtype, 7-9 atype, 10-12 btype,
    13/14 negate A/B, 15/16 transpose A/B, 17-22 N>>3, 24-28 M>>4, 30-31 .ws B-reuse shift.
    Tables 43/44: 4-5 SFB ID, 7-9 atype, 10-12 btype (10-11 for mxf4*), 13/14 negate, 15/16
    transpose, 17-22 N>>3, 23 scale type (0 UE4M3, 1 UE8M0), 27-28 M>>7, 29-30 SFA ID, 31 K=96
    (mxf4*).  ``reserved`` ORs the bits the kind's table marks reserved."""
    raw: int
    kind: str
    sparse: int
    saturate: int
    dtype: int
    atype: int
    btype: int
    negate_a: int
    negate_b: int
    transpose_a: int
    transpose_b: int
    n: int
    m: int
    ws_shift: int
    scale_type: int
    sfa_id: int
    sfb_id: int
    k96: int
    reserved: int


def _bits(x, lo, n):
    return (x >> lo) & ((1 << n) - 1)


def decode_idesc(idesc: int, kind: str) -> InstrDescriptor:
    i = idesc & 0xFFFF_FFFF
    common = dict(raw=i, kind=kind, sparse=_bits(i, 2, 1), atype=_bits(i, 7, 3),
                  negate_a=_bits(i, 13, 1), negate_b=_bits(i, 14, 1),
                  transpose_a=_bits(i, 15, 1), transpose_b=_bits(i, 16, 1), n=_bits(i, 17, 6) << 3)
    if kind in BLOCK_SCALED_KINDS:
        fp4 = kind != "mxf8f6f4"
        reserved = _bits(i, 0, 2) | _bits(i, 3, 1) | _bits(i, 6, 1) | _bits(i, 24, 3)
        if fp4:
            reserved |= _bits(i, 12, 1)
        else:
            reserved |= _bits(i, 31, 1)
        return InstrDescriptor(**common, saturate=0, dtype=1,
                               btype=_bits(i, 10, 2 if fp4 else 3), m=_bits(i, 27, 2) << 7,
                               ws_shift=0, scale_type=_bits(i, 23, 1), sfa_id=_bits(i, 29, 2),
                               sfb_id=_bits(i, 4, 2), k96=_bits(i, 31, 1) if fp4 else 0,
                               reserved=reserved)
    reserved = _bits(i, 6, 1) | _bits(i, 23, 1) | _bits(i, 29, 1)
    return InstrDescriptor(**common, saturate=_bits(i, 3, 1), dtype=_bits(i, 4, 2),
                           btype=_bits(i, 10, 3), m=_bits(i, 24, 5) << 4, ws_shift=_bits(i, 30, 2),
                           scale_type=0, sfa_id=0, sfb_id=0, k96=0, reserved=reserved)
