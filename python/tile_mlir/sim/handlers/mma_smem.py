"""Reading an MMA operand out of a CTA's shared memory through a matrix descriptor (wgmma and
tcgen05.mma): bounds, the async-proxy rule and the load observers, then mma_operands' layout."""

from __future__ import annotations

import numpy as np

from ..errors import EmulationError
from ..mma_operands import byte_span, element_addresses, gather
from ..state import shared_observe_chunks
from .tcgen05_async import check_proxy


#: descriptor geometry -> (addresses, bit positions, byte span, byte indices, 16-byte chunks): a
#: K loop reads the same few ring slots again and again (bounded: cleared when full)
_LAYOUTS: dict = {}
_LAYOUTS_MAX = 256


def _layout(desc, rows, cols, elem_bits, k_major):
    key = (desc.start, rows, cols, elem_bits, k_major, desc.lbo, desc.sbo, desc.swizzle)
    hit = _LAYOUTS.get(key)
    if hit is None:
        addr, bit = element_addresses(desc.start, rows, cols, elem_bits, k_major, desc.lbo,
                                      desc.sbo, desc.swizzle)
        lo, hi = byte_span(addr, elem_bits)
        nb = max(elem_bits // 8, 1)
        idx = (addr[..., None] + np.arange(nb)).reshape(-1)
        chunks = np.unique((addr // 16) * 16)
        for x in (addr, bit, idx, chunks):
            x.flags.writeable = False
        if len(_LAYOUTS) >= _LAYOUTS_MAX:
            _LAYOUTS.clear()
        hit = _LAYOUTS[key] = (addr, bit, lo, hi, idx, chunks)
    return hit


class _Reader:
    __slots__ = ("line",)

    def __init__(self, line):
        self.line = line


def read_operand(M, t, cta, desc, rows: int, cols: int, elem_bits: int, k_major: bool,
                 what: str, line: int, spans: list | None = None) -> np.ndarray:
    """The rows x cols bit patterns (uint32) of an operand described by ``desc`` (a decoded
    smem_desc descriptor) in ``cta``'s shared memory, read by thread ``t`` in the async proxy;
    ``spans`` (if given) collects (cta, lo, hi), the shared bytes read."""
    addr, bit, lo, hi, idx, chunks = _layout(desc, rows, cols, elem_bits, k_major)
    sm = cta.smem
    if lo < 0 or hi > sm.size:
        raise EmulationError(f"{what} reads shared bytes [0x{lo:x}, 0x{hi:x}) of CTA {cta.idx}, "
                             f"outside its {sm.size}-byte shared memory [{desc}]")
    if spans is not None:
        spans.append((cta, lo, hi))
    check_proxy(M, t, cta, idx, _Reader(line), what)
    shared_observe_chunks(M, t, cta, chunks, what, unique=True)
    return gather(sm.np, addr, bit, elem_bits)
