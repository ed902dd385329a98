"""The MMA kinds of gemm_async: which element types each takes, how wide K is per instruction, and the
type codes of the tcgen05 instruction descriptor and of wgmma (pure data; docs/gemm.md §2).

Element types are the buffer types' spellings (dialect/types.py). tf32 operands are f32 buffers (the
tensor core reads the f32 bit patterns and drops the low 13 mantissa bits). 6- and 4-bit operands of
the f8f6f4 kinds sit in shared memory in the padded 16-element forms (.b6x16_p32 / .b4x16_p64: one
8-bit slot per element), so those kinds work in 8-bit geometry; mxf4 / mxf4nvf4 read packed 4-bit data.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...dialect.decline import Decline

__all__ = ["Kind", "KINDS", "derive_kind", "E8M0", "E4M3", "F8F6F4_CODES"]

E8M0, E4M3 = "f8E8M0FNU", "f8E4M3FN"  # scale-factor element types: UE8M0, and UE4M3 (E4M3 read as unsigned)
_INT8 = ("i8", "si8", "ui8")
# tcgen05 idesc atype/btype codes of .kind::f8f6f4 and .kind::mxf8f6f4 (PTX Table 42/43)
F8F6F4_CODES = {"f8E4M3FN": 0, "f8E5M2": 1, "f6E2M3FN": 3, "f6E3M2FN": 4, "f4E2M1FN": 5}


@dataclass(frozen=True)
class Kind:
    name: str                      # PTX .kind:: name
    codes: dict                    # operand element type -> tcgen05 idesc atype/btype code
    d_codes: dict                  # accumulator element type -> tcgen05 idesc dtype code (none for block scaled)
    geometry_bits: int             # bits one element occupies in shared memory
    block_scaled: bool = False
    mn_major: tuple = ()           # operand element types that may be MN-major (PTX "Transpose" table)

    @property
    def k_elems(self) -> int:
        """K of one instruction: 256 bits of each row of A."""
        return 256 // self.geometry_bits


KINDS = {k.name: k for k in (
    Kind("tf32", {"f32": 2}, {"f32": 1}, 32),
    Kind("f16", {"f16": 0, "bf16": 1}, {"f16": 0, "f32": 1}, 16, mn_major=("f16", "bf16")),
    Kind("f8f6f4", F8F6F4_CODES, {"f16": 0, "f32": 1}, 8, mn_major=("f8E4M3FN", "f8E5M2")),
    Kind("i8", {"ui8": 0, "i8": 1, "si8": 1}, {"i32": 2, "si32": 2}, 8, mn_major=_INT8),
    Kind("mxf8f6f4", F8F6F4_CODES, {"f32": 1}, 8, block_scaled=True, mn_major=("f8E4M3FN", "f8E5M2")),
    Kind("mxf4", {"f4E2M1FN": 1}, {"f32": 1}, 4, block_scaled=True),
    Kind("mxf4nvf4", {"f4E2M1FN": 1}, {"f32": 1}, 4, block_scaled=True),
)}


def derive_kind(a_elem: str, b_elem: str, a_packed: bool, block_scaled: bool, scale_vec: int,
                sf_elem: str | None, explicit: str | None) -> Kind:
    """The kind of an MMA of these operand element types. `a_packed`: the 4-bit operands are packed two
    per byte (no .b4x16_p64 packing), which only mxf4 / mxf4nvf4 read. `explicit` is the op's `kind`."""
    if explicit is not None:
        kind = KINDS.get(explicit)
        if kind is None:
            raise Decline("kind", f"unknown kind {explicit!r}; known: {', '.join(KINDS)}")
    else:
        kind = KINDS[_natural_kind(a_elem, b_elem, a_packed, block_scaled, scale_vec, sf_elem)]
    for side, elem in (("A", a_elem), ("B", b_elem)):
        if elem not in kind.codes:
            raise Decline("kind", f".kind::{kind.name} takes {' / '.join(kind.codes)} operands, {side} is {elem}")
    if kind.name in ("tf32", "f16") and kind.codes[a_elem] != kind.codes[b_elem]:
        raise Decline("kind", f".kind::{kind.name} needs A and B of one type, got {a_elem} and {b_elem}")
    if kind.block_scaled != block_scaled:
        raise Decline("kind", f".kind::{kind.name} is {'' if kind.block_scaled else 'not '}block scaled: use "
                        f"tile.gemm_async{'.block_scale with scale factors' if kind.block_scaled else ''}")
    if kind.geometry_bits == 4 and not a_packed:
        raise Decline("kind", f".kind::{kind.name} reads packed 4-bit operands; padded (.b4x16_p64) ones "
                        "are .kind::mxf8f6f4's")
    if kind.name in ("f8f6f4", "mxf8f6f4") and a_packed and "f4E2M1FN" in (a_elem, b_elem):
        raise Decline("kind", f".kind::{kind.name} reads 4-bit operands in the padded .b4x16_p64 form "
                        "(packing b4x16_p64); packed ones are .kind::mxf4's / mxf4nvf4's")
    return kind


def _natural_kind(a: str, b: str, a_packed: bool, block_scaled: bool, scale_vec: int, sf_elem) -> str:
    if block_scaled:
        if a == b == "f4E2M1FN" and a_packed:
            return "mxf4" if scale_vec == 32 and sf_elem == E8M0 else "mxf4nvf4"
        return "mxf8f6f4"
    if a == "f32" or b == "f32":
        return "tf32"
    if a in ("f16", "bf16") or b in ("f16", "bf16"):
        return "f16"
    if a in _INT8 or b in _INT8:
        return "i8"
    return "f8f6f4"
