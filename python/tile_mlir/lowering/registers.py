"""Register tiles in convert-tile-to-nvvm: their storage, tile.convert and tile.copy to and from registers.

A register tile is an i32 alloca in the kernel's entry block (generic address space, as libNVVM asks): every access has a
static index, so LLVM's SROA turns the words into registers, also across loops (docs/registers.md §2).

The epilogue (docs/registers.md §6):
  - tile.convert: per destination word, the source elements of its slots through cvt (nvvm.convert.
    f32x2.to.{bf16x2,f16x2,f8x2}: rn / rz, and rn.satfinite for f8); the slot map is static (verified);
  - tile.copy registers <-> global / shared: plan_register_store splits each element's memory offset into
    a thread part and a slot part, off = A(thread) + B(slot), with A linear in the bits of the thread's
    rank in the tile's warps (every power-of-two fragment is); the slots are then cut into runs that are
    contiguous in memory and moved as vectors of up to 16 bytes, aligned as the offsets prove. A swizzled
    buffer (`Swizzle<..> o inner`) is planned on `inner`; where the bits the swizzle reads come from the
    thread alone (as for the wgmma fragment in a 128B-swizzled tile: a row's bits are the lane's), the
    thread XORs its 16-byte-chunk offsets with one value, so a warp's 8 rows land in 8 bank groups.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..lazy import numpy as np  # imported at first use (tile-opt --help never calls it)

from ..layout import ComposedLayout, fragment_of, m
from ..layout.fragment import WARP_SIZE, offsets_table
from ..layout.swizzle import swizzle_params
from ..mlir import ir
from . import nvvm_ir
from .emitter import I32, I64, int_type, ptr_type

__all__ = ["StorePlan", "StoreError", "plan_register_store", "alloc_registers", "emit_convert", "emit_move",
           "REG_ADDR_SPACE"]

REG_ADDR_SPACE = 0  # the register tile's alloca: libNVVM takes allocas in the generic space only
_VECTOR_BYTES = (16, 8, 4, 2, 1)


class StoreError(Exception):
    """A register store this lowering cannot do; the message says why."""


@dataclass(frozen=True)
class StorePlan:
    """first_warp, warps: the warps that hold the tile; base_bytes + sum over thread-rank bits b of
    bit_b * coeff_bytes[b]: the thread's byte offset; chunks: (register byte, memory byte, bytes, align);
    swizzle: None, or (mask, shift) of a swizzled buffer: each chunk's address is (thread offset + memory
    byte) ^ ((thread offset & mask) >> shift)."""

    first_warp: int
    warps: int
    base_bytes: int
    coeff_bytes: tuple[tuple[int, int], ...]
    chunks: tuple[tuple[int, int, int, int], ...]
    swizzle: tuple[int, int] | None = None


def plan_register_store(mem_layout, reg_layout, elem_bits: int, mem_align: int) -> StorePlan:
    """Plan the store of sliced `reg_layout` to sliced `mem_layout` (axis m, whole bytes per element run)."""
    if isinstance(mem_layout, ComposedLayout):
        plan = plan_register_store(mem_layout.inner, reg_layout, elem_bits, mem_align)
        return _swizzled(plan, mem_layout, reg_layout, elem_bits)
    frag = fragment_of(reg_layout, replicas=True)  # (a replicated tile is loaded by every holder: verified)
    off = offsets_table(mem_layout).get(m, np.zeros(mem_layout.shard_extent(), dtype=np.int64))
    if frag.elem is not None:
        off = off[frag.elem]
    warps = frag.warps
    w0, nw = warps[0], warps[-1] - warps[0] + 1
    rank = (frag.warp - w0) * WARP_SIZE + frag.lane
    slots = np.unique(frag.slot)
    n = nw * WARP_SIZE
    if frag.slot.size != n * slots.size:
        raise StoreError(f"every thread of warps {w0}..{w0 + nw - 1} must hold the same register slots")
    table = np.full((n, int(slots.max()) + 1), -1, dtype=np.int64)
    table[rank, frag.slot] = off
    table = table[:, slots]
    if (table < 0).any():
        raise StoreError(f"every thread of warps {w0}..{w0 + nw - 1} must hold the same register slots")
    a = table[:, 0]
    b = table[0] - table[0, 0]
    if not (table == a[:, None] + b[None, :]).all():
        raise StoreError("an element's address is not a thread part plus a register-slot part")
    coeffs = []
    fit = np.full(n, a[0], dtype=np.int64)
    for bit in range(max(1, (n - 1).bit_length())):
        if 1 << bit < n:
            c = int(a[1 << bit] - a[0])
            if c:
                coeffs.append((bit, c))
                fit += ((np.arange(n) >> bit) & 1) * c
    if not (fit == a).all():
        raise StoreError("a thread's address is not linear in the bits of its rank (a non-power-of-two fragment)")
    eb = elem_bits // 8 if elem_bits >= 8 else None
    if eb is None:
        raise StoreError(f"{elem_bits}-bit elements: the register store moves whole bytes")
    thread_gcd = 0
    for _, c in coeffs:
        thread_gcd = math.gcd(thread_gcd, c * eb)
    chunks = []
    i = 0
    while i < slots.size:
        j = i + 1  # a run: consecutive slots at consecutive addresses
        while j < slots.size and slots[j] == slots[j - 1] + 1 and b[j] == b[j - 1] + 1:
            j += 1
        while i < j:
            mem = int((a[0] + b[i]) * eb)
            regb = int(slots[i]) * eb
            for size in _VECTOR_BYTES:
                align = math.gcd(math.gcd(thread_gcd, mem), mem_align) if (thread_gcd or mem) else mem_align
                if size <= (j - i) * eb and size % eb == 0 and align % size == 0 and regb % min(size, 4) == 0:
                    break
            chunks.append((regb, mem - int(a[0]) * eb, size, size))
            i += size // eb
        i = j
    return StorePlan(w0, nw, int(a[0]) * eb, tuple((bit, c * eb) for bit, c in coeffs), tuple(chunks))


def _swizzled(plan: StorePlan, mem_layout: ComposedLayout, reg_layout, elem_bits: int) -> StorePlan:
    """`plan` (made on the swizzle's inner layout) for the swizzled buffer, when the swizzle's source bits of
    every element's byte offset are its thread's (so one XOR value per thread). The swizzle acts on absolute
    addresses, so on offsets only from a buffer aligned to its repeat: the verifier's swizzle-alignment
    check holds every swizzled shared buffer to that."""
    mode = mem_layout.swizzle
    b, mm, s = swizzle_params(mode)
    if not b:
        return plan
    mask = ((1 << b) - 1) << (mm + s)
    frag = fragment_of(reg_layout, replicas=True)
    off = offsets_table(mem_layout.inner).get(m, np.zeros(mem_layout.shard_extent(), dtype=np.int64))
    if frag.elem is not None:
        off = off[frag.elem]
    byte = off * (elem_bits // 8)
    rank = (frag.warp - plan.first_warp) * WARP_SIZE + frag.lane
    first = np.full(plan.warps * WARP_SIZE, -1, dtype=np.int64)
    first[rank] = byte & mask  # any element's source bits per thread; then all of them must agree
    if not (first[rank] == (byte & mask)).all():
        raise StoreError(f"a thread's elements differ in the bits the {mode.value} swizzle reads (bits "
                         f"{mm + s}..{mm + s + b - 1} of the byte offset): each thread must hold whole rows of "
                         "the swizzle pattern")
    if any(size > 1 << mm for _, _, size, _ in plan.chunks):  # (a chunk is aligned to its size)
        raise StoreError("a vector access would straddle the swizzle's 16-byte units")
    return StorePlan(plan.first_warp, plan.warps, plan.base_bytes, plan.coeff_bytes, plan.chunks, (mask, s))


# -- emission -----------------------------------------------------------------------------------------
def alloc_registers(em, bt):
    """The register tile's words: an i32 alloca (em must be at the start of the entry block)."""
    words = max(1, -(-fragment_of(bt.layout, replicas=True).slots_per_thread * bt.elem_bits // 32))
    return em.result("llvm.alloca", ptr_type(REG_ADDR_SPACE), (em.i64(words),),
                     attrs={"elem_type": ir.TypeAttr.get(I32()), "alignment": ir.IntegerAttr.get(I64(), 16)})




def emit_convert(em, dst_t, src_t, dst, src, rounding: str) -> None:
    """dst[slot] = cvt(src[slot map]) per destination word (f32 sources: one element per word)."""
    d, s = fragment_of(dst_t.layout), fragment_of(src_t.layout)
    slot_map = dict(zip(d.slot.tolist(), s.slot.tolist()))  # static: tile.convert verifies it
    f32 = ir.F32Type.get()
    epw = 32 // dst_t.elem_bits
    rnd = nvvm_ir.fp_rnd_mode(em, rounding.split('_')[0])
    sat = {"sat": nvvm_ir.sat_mode(em, "satfinite")} if rounding.endswith("satfinite") else {}
    zero = None

    def source(slot):
        nonlocal zero
        if slot not in slot_map:  # a slot the tile leaves empty: convert 0
            zero = zero if zero is not None else em.result("llvm.mlir.constant", f32,
                                                           attrs={"value": ir.FloatAttr.get(f32, 0.0)})
            return zero
        return em.load(f32, em.gep(src, 4 * slot_map[slot]), align=4)

    for word in range(-(-d.slots_per_thread // epw)):
        slots = range(word * epw, word * epw + epw)
        if not any(sl in slot_map for sl in slots):
            continue
        if epw == 2:  # (hi, lo): the lower slot is the low half
            v = nvvm_ir.convert_f32x2_to_f16x2(em, dst_t.elem, ir.VectorType.get([2], _float16(dst_t.elem)),
                                               source(slots[1]), source(slots[0]), {"rnd": rnd, **sat})
            w = em.result("llvm.bitcast", I32(), (v,))
        else:  # f8: two i16 (a high, b low), the lower pair in the low half
            halves = []
            for lo in (slots[0], slots[2]):
                h = nvvm_ir.convert_f32x2_to_f8x2(em, source(lo + 1), source(lo),
                                                  {"dstTy": ir.TypeAttr.get(ir.Type.parse(dst_t.elem)), "rnd": rnd, **sat})
                halves.append(em.zext(h, I32()))
            w = em.or_(halves[0], em.shl(halves[1], em.i32(16)))
        em.store(w, em.gep(dst, 4 * word), align=4)


def _float16(elem: str):
    return ir.BF16Type.get() if elem == "bf16" else ir.F16Type.get()


def emit_move(em, plan: StorePlan, mem, regs, warp, lane, load: bool) -> None:
    """Each thread of the plan's warps moves its chunks between memory and its registers (em inside the
    guard of those warps): stores, or loads when `load`."""
    rank = em.add(em.shl(em.sub(warp, em.i32(plan.first_warp)), em.i32(5)), lane)
    # the thread's byte offset, in i64 where i32 could wrap (a region of a global tensor over 2 GiB)
    wide = plan.base_bytes + sum(c for _, c in plan.coeff_bytes) >= 1 << 31
    t = I64() if wide else I32()
    if wide:
        rank = em.zext(rank, t)
    off = em.const(plan.base_bytes, t)
    for bit, c in plan.coeff_bytes:
        off = em.add(off, em.mul(em.and_(em.shr(rank, em.const(bit, t)), em.const(1, t)), em.const(c, t)))
    base = em.gep(mem, off)
    if plan.swizzle:
        mask, shift = plan.swizzle
        flip = em.shr(em.and_(off, em.const(mask, t)), em.const(shift, t))
    for regb, memb, size, align in plan.chunks:
        vt = ir.VectorType.get([size // 4], I32()) if size >= 8 else int_type(size * 8)
        r = em.gep(regs, regb)
        a = em.gep(mem, em.xor(em.add(off, em.const(memb, t)), flip)) if plan.swizzle else em.gep(base, memb)
        if load:
            em.store(em.load(vt, a, align=align), r, align=min(size, 4))
        else:
            em.store(em.load(vt, r, align=min(size, 4)), a, align=align)
