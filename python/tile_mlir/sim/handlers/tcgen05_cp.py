"""tcgen05.cp: shared memory to tensor memory, every shape, multicast and decompression (PTX ISA
§9.7.16.9; docs/tcgen05.md §6-§7; what PTX leaves open is docs/emulator.md A1-A10, A18).  A cp is
an asynchronous operation of tcgen05_async: it reads shared memory at issue and writes tensor
memory when a commit retires it."""

from __future__ import annotations

import numpy as np

from .. import findings, memory as mem
from ..errors import EmulationError
from ..smem_desc import (VERSION_RULE, check_for_cp, decode as decode_desc, unversioned,
                         version_message)
from ..state import shared_observe_chunks
from ..swizzle import ROW_PITCH, swizzle_np
from . import tcgen05_async as aop

# shape -> (rows, 16-byte chunks per row)
CP_SHAPES = {"128x256b": (128, 2), "128x128b": (128, 1), "4x256b": (4, 2), "64x128b": (64, 1),
             "32x128b": (32, 1)}
CP_MULTICAST = {"128x256b": (None,), "128x128b": (None,), "4x256b": (None,),
                "64x128b": ("warpx2::02_13", "warpx2::01_23"), "32x128b": ("warpx4",)}


class CpSpec:
    __slots__ = ("cg", "shape", "mc", "decomp", "line", "text")


def decode_cp(d, inst):
    p = inst.parts
    spec = CpSpec()
    spec.cg = aop.cta_group(d, inst)
    if spec.cg is None:
        raise d.error("tcgen05.cp needs .cta_group::1 or ::2")
    shapes = [q for q in p if q in CP_SHAPES]
    if len(shapes) != 1:
        raise d.error(f"tcgen05.cp needs exactly one shape of {sorted(CP_SHAPES)}")
    spec.shape = shapes[0]
    mcs = [q for q in p if q.startswith("warpx")]
    spec.mc = mcs[0] if mcs else None
    if spec.mc not in CP_MULTICAST[spec.shape]:
        need = CP_MULTICAST[spec.shape]
        raise d.error(f"shape .{spec.shape} " + (
            "takes no multicast qualifier" if need == (None,) else
            f"requires multicast {' or '.join('.' + x for x in need)}") +
            (f", got .{spec.mc}" if spec.mc else ""))
    spec.decomp = None
    if "b8x16" in p:
        fm = [q for q in p if q in ("b6x16_p32", "b4x16_p64")]
        if len(fm) != 1:
            raise d.error(".b8x16 needs a source format .b6x16_p32 or .b4x16_p64")
        spec.decomp = fm[0]
    known = {"tcgen05", "cp", "b8x16", "b6x16_p32", "b4x16_p64", spec.shape, spec.mc,
             f"cta_group::{spec.cg}"}
    extra = [q for q in p if q not in known]
    if extra:
        raise d.error(f"unknown tcgen05.cp qualifier(s) {extra}")
    spec.line, spec.text = inst.line, inst.text
    if len(inst.operands) != 2:
        raise d.error("tcgen05.cp needs `[taddr], s-desc`")
    ta, _ = d.addr_expr(inst.operands[0])
    aop.observe(d.M)
    return d.compile([f"_cp(M, t, _spec, {ta}, {d.src(inst.operands[1], 64)})"],
                     {"_cp": exec_cp, "_spec": spec})


def _dest_lanes(shape, mc, L0, rows):
    r = np.arange(rows)
    if shape in ("128x256b", "128x128b"):
        return (L0 + r)[:, None]
    if shape == "4x256b":
        return (L0 + 32 * r)[:, None]
    if shape == "32x128b":
        return L0 + r[:, None] + 32 * np.arange(4)[None, :]
    if mc == "warpx2::02_13":  # rows 0-31 -> warps 0 and 2, rows 32-63 -> warps 1 and 3
        return L0 + r[:, None] + 64 * np.arange(2)[None, :]
    # warpx2::01_23: rows 0-31 -> warps 0 and 1, rows 32-63 -> warps 2 and 3
    base = (r % 32) + 64 * (r // 32)
    return L0 + base[:, None] + 32 * np.arange(2)[None, :]


def decompress_b4(chunks):
    """b4x16_p64 -> b8x16: element i is nibble i of the first 8 bytes (low nibble first) and the
    output byte is nibble << 2.  This placement was measured on sm_103 (GB300) only, by a public
    probe log (docs/emulator.md A2); PTX shows it only in a figure."""
    lo = chunks[..., :8] & 0x0F
    hi = chunks[..., :8] >> 4
    nib = np.stack([lo, hi], axis=-1).reshape(chunks.shape[:-1] + (16,))
    return (nib << 2).astype(np.uint8)


def decompress_b6(chunks):
    """b6x16_p32 -> b8x16: element i is bits [6i, 6i + 6) of the first 12 bytes read as one
    little-endian 96-bit word, and the output byte holds it in bits [5, 0] with 2 zero bits above.

    Model, not measurement: PTX draws this decompression only in figures (194-198). The text of PTX
    "Padding and Alignment of the Sub-byte Types" defines the 8-bit container form of 6-bit data
    (.b6p2x16: "6-bits of data at the LSB and 2-bits of padding at the MSB") and the packed source
    order (sixteen contiguous elements, as .b4x16_p64's measured low-nibble-first order); the sign
    then sits at bit 5 as in the measured b4 placement (nibble << 2). Unverified on silicon: an
    sm_100a measurement overrides this function (docs/emulator.md A1)."""
    b = chunks[..., :12].astype(np.uint32)
    words = b[..., 0::3] | (b[..., 1::3] << 8) | (b[..., 2::3] << 16)  # 4 x 24 bits = 4 elements each
    shifts = np.arange(4, dtype=np.uint32) * 6
    elems = (words[..., :, None] >> shifts) & 0x3F  # (..., 4 words, 4 elements)
    return elems.reshape(chunks.shape[:-1] + (16,)).astype(np.uint8)


DECOMPRESS = {"b4x16_p64": decompress_b4, "b6x16_p32": decompress_b6}


def exec_cp(M, t, spec, taddr, desc):
    aop.check_cta_group(M, spec.cg, spec.line)
    L0, C0 = (taddr >> 16) & 0xFFFF, taddr & 0xFFFF
    dd = decode_desc(desc)
    errs = check_for_cp(dd)
    if errs:
        raise EmulationError("invalid shared-memory descriptor for tcgen05.cp: " + "; ".join(errs)
                             + f" [{dd}]")
    if unversioned(dd):
        findings.report(M, VERSION_RULE, f"line {spec.line}: " + version_message(dd, "tcgen05.cp"),
                        line=spec.line)
    if C0 % 4:
        raise EmulationError(f"tcgen05.cp column offset {C0} (taddr 0x{taddr:08x}) is not a "
                             f"multiple of 4 (128-bit aligned; docs/emulator.md A3)")
    rows, nch = CP_SHAPES[spec.shape]
    if spec.shape == "4x256b":
        if L0 > 31:
            raise EmulationError(f"tcgen05.cp.4x256b lane offset {L0} out of range 0..31")
    elif L0:
        raise EmulationError(f"tcgen05.cp.{spec.shape} lane offset {L0} must be 0 (its footprint "
                             f"covers all 128 lanes)")
    ncols = 4 * nch
    if C0 + ncols > mem.TMEM_COLS:
        raise EmulationError(f"tcgen05.cp columns [{C0}, {C0 + ncols}) exceed 512")
    mode = dd.swizzle
    P = ROW_PITCH[mode]
    r = np.arange(rows, dtype=np.int64)
    c = np.arange(nch, dtype=np.int64)
    lin = (dd.start + (r // 8) * dd.sbo + (r % 8) * P)[:, None] + \
        ((c * dd.lbo) if mode == 0 else (c * 16))[None, :]
    phys = swizzle_np(lin, mode)  # (rows, nch) byte addresses of 16-byte chunks
    lanes = _dest_lanes(spec.shape, spec.mc, L0, rows)  # (rows, k)
    k = lanes.shape[1]
    rec = aop.AsyncOp(M, "tcgen05.cp", spec.line, spec.cg, t)
    for cta in aop.cta_pair(M, t, spec.cg):
        sm = cta.smem
        lo, hi = int(phys.min()), int(phys.max()) + 16
        if lo < 0 or hi > sm.size:
            raise EmulationError(f"tcgen05.cp reads shared bytes [0x{lo:x}, 0x{hi:x}) of CTA "
                                 f"{cta.idx}, outside its {sm.size}-byte shared memory [{dd}]")
        idx = phys[:, :, None] + np.arange(16)[None, None, :]
        aop.check_proxy(M, t, cta, idx, spec)
        chunks = np.unique(phys)  # (16-byte aligned: the descriptor's start counts 16 bytes)
        shared_observe_chunks(M, t, cta, chunks, "tcgen05.cp read", unique=True)
        data = sm.np[idx]  # (rows, nch, 16) uint8
        if spec.decomp:
            data = DECOMPRESS[spec.decomp](data)
        vals = np.ascontiguousarray(data).view("<u4").reshape(rows, ncols)
        tm = cta.tmem
        err = tm.check_cols(C0, C0 + ncols)
        if err:
            raise EmulationError(f"tcgen05.cp writes TMEM of CTA {cta.idx} at columns "
                                 f"[{C0}, {C0 + ncols}): {err}")
        L = np.repeat(lanes, ncols, axis=1).reshape(rows, k, ncols)
        C = np.broadcast_to(C0 + np.arange(ncols), (rows, k, ncols))
        V = np.broadcast_to(vals[:, None, :], (rows, k, ncols))
        Lf, Cf, Vf = L.reshape(-1), np.ascontiguousarray(C).reshape(-1), \
            np.ascontiguousarray(V).reshape(-1)
        rec.writes.append((cta, Lf, Cf, Vf))
        aop.tag_dest(rec, cta, Lf, Cf)
        rec.chunks.append((cta, chunks // 16))
        aop.watch_reads(rec, cta, lo, hi)
    aop.issue(t, rec)
    M.progress += 1


