"""The 64-bit tcgen05 shared-memory matrix descriptor, decoded from the PTX ISA table
("Shared memory descriptor", tcgen05 form):

    bits  0..13  start address >> 4        bits 14..15 reserved 0
    bits 16..29  leading byte offset >> 4  bits 30..31 reserved 0
    bits 32..45  stride byte offset >> 4
    bits 46..48  fixed 0b001
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


def check_for_cp(d: SmemDescriptor) -> list[str]:
    """Reasons why ``tcgen05.cp`` on sm_100a cannot use descriptor ``d`` (empty list: usable).

    Policy (docs/emulator.md A7 and A8; docs/tcgen05.md §4, §5): base offset must be 0 and a
    swizzled pattern must start with zero swizzle-phase bits (address bits 7.. inside the repeat),
    because the hardware's use of the base offset field is undocumented; mode 1 (128B_base32B) is
    undocumented for cp.
    """
    errs = []
    if d.fixed_46_48 != 1:
        errs.append(f"bits 46-48 must be 0b001 (fixed version field), got 0b{d.fixed_46_48:03b}")
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
