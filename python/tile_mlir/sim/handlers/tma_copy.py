"""TMA copies: cp.async.bulk.tensor (tile mode, 1D-5D) and cp.async.bulk loads into and stores out of
shared memory; the model, the kept state and the race checks are in tma.py."""

from __future__ import annotations

import numpy as np

from ..errors import EmulationError
from ..memory import own_offset
from . import mbarrier as mbar
from . import tma
from .tma import SMEM_BOX_ALIGN, TILE_DIMS, check_bulk, check_fenced, check_qualifiers, \
    check_tma_written, new_record, register_hooks, space_of, tensor_map_at, tmap_operand


# ------------------------------------------------------------------------------- tensor copies
def decode_bulk_tensor(d, inst):
    p = inst.parts  # cp async bulk tensor Nd dst src ...
    dims = TILE_DIMS.get(p[4] if len(p) > 4 else "")
    if dims is None:
        raise d.error("cp.async.bulk.tensor needs a dimension .1d .. .5d")
    dst, src = space_of(p, 5), space_of(p, 6)
    if dst in ("shared", "cluster") and src == "global":
        return _decode_tensor_load(d, inst, dims, dst)
    if dst == "global" and src == "shared":
        return _decode_tensor_store(d, inst, dims)
    raise d.error("cp.async.bulk.tensor copies .shared::{cta,cluster}.global or "
                  ".global.shared::cta")


def _decode_tensor_load(d, inst, dims, dst_space):
    p = inst.parts
    known = {"cp", "async", "bulk", "tensor", p[4], p[5], "global", "tile",
             "mbarrier::complete_tx::bytes", "multicast::cluster", "cta_group::1", "cta_group::2"}
    check_qualifiers(d, inst, known)
    if "mbarrier::complete_tx::bytes" not in p:
        raise d.error("a cp.async.bulk.tensor load completes with .mbarrier::complete_tx::bytes")
    multicast = "multicast::cluster" in p
    if multicast and dst_space != "cluster":
        raise d.error(".multicast::cluster needs the .shared::cluster destination")
    cg = 2 if "cta_group::2" in p else 1
    ops = inst.operands
    want = 3 + multicast + ("L2::cache_hint" in p)
    if len(ops) != want:
        raise d.error(f"expected {want} operands `[dstMem], [tensorMap, {{..}}], [mbar]"
                      f"{', ctaMask' if multicast else ''}"
                      f"{', policy' if 'L2::cache_hint' in p else ''}`, got {len(ops)}")
    de, _ = d.addr_expr(ops[0])
    te, coords = tmap_operand(d, ops[1])
    if len(coords) != dims:
        raise d.error(f".{dims}d takes {dims} coordinates, got {len(coords)}")
    me, _ = d.addr_expr(ops[2])
    mask = d.src(ops[3], 16) if multicast else "None"
    register_hooks(d)
    return d.compile([f"_load(M, t, {de}, '{dst_space}', {te}, [{', '.join(coords)}], {me}, "
                      f"{mask}, {cg}, {inst.line})"], {"_load": tensor_load})


def _mapped_box(M, taddr, coords, what, why, t=None):
    """The tensor map at `taddr`, its global address and the box's coordinates, once they fit
    it: one per dimension, the innermost a multiple of 16 bytes (`why` cites the row that says
    so). A load through a dense packed 4-bit map (16U4_ALIGN8B) copies its bytes (`as_bytes`)."""
    tm, gaddr = tensor_map_at(M, taddr, what, t)
    if tm.data_type == "16u4_align8b" and "store" not in what and len(coords) == tm.rank:
        if coords[0] % 32:
            raise EmulationError(f"{what}: the innermost coordinate {coords[0]} of a "
                                 f"16U4_ALIGN8B box is not a multiple of 32 elements (16 bytes)")
        tm, coords = tm.as_bytes(), [coords[0] // 2, *coords[1:]]
    tm.check_executable(what)
    if len(coords) != tm.rank:
        raise EmulationError(f"{what}: .{len(coords)}d for a tensor map of rank {tm.rank}")
    if coords[0] * tm.elem_size % 16:
        raise EmulationError(f"{what}: the innermost coordinate {coords[0]} times the element "
                             f"size {tm.elem_size} is not a multiple of 16 bytes ({why})")
    return tm, gaddr, coords


def tensor_load(M, t, dst, dst_space, taddr, coords, mb_addr, mask, cg, line):
    what = "cp.async.bulk.tensor"
    tm, gaddr, coords = _mapped_box(M, taddr, coords, what, "a fault on the H200, A25", t)
    targets = _destinations(M, t, dst, dst_space, mb_addr, mask, cg, what)
    goff, inb, phys = tm.box(coords, targets[0][1])
    data = _gather(M, gaddr, goff, inb, tm, what)
    rec = new_record(M, t, line, what)

    def land():  # the bytes land, then complete_tx signals them (in flight under a policy)
        for cta, _, mb_cta, mb_off in targets:  # one offset: multicast lands at the same one
            _write_smem(M, cta, phys, data, rec, what)
            _complete(M, rec, cta, mb_cta, mb_off, tm.box_bytes, what)
    if M.policy is not None:
        _in_flight(M, [c for c, *_ in targets], (phys[:, None] + np.arange(data.shape[1])), rec)
    M.complete_async(land, what, line, t)
    M.progress += 1


def _destinations(M, t, dst, dst_space, mb_addr, mask, cg, what):
    """[(destination CTA, shared offset, CTA of its mbarrier, mbarrier offset)]: the issuer's own
    CTA (.shared::cta), the CTA a .shared::cluster address names, or every CTA of ``mask``."""
    cta, off = M.shared_target(t, dst, dst_space)
    mcta, moff = M.shared_target(t, mb_addr, dst_space)
    if off % SMEM_BOX_ALIGN:
        raise EmulationError(f"{what}: shared destination 0x{off:x} is not {SMEM_BOX_ALIGN}-byte "
                             f"aligned (A24)")
    if mask is None:
        if mcta is not cta and not (cg == 2 and mcta is _peer(M, cta, what)):
            raise EmulationError(f"{what}: the mbarrier (CTA rank {mcta.rank}) must be in the "
                                 f"destination's CTA (rank {cta.rank})"
                                 + (" or its peer (.cta_group::2)" if cg == 2 else ""))
        return [(cta, off, mcta, moff)]
    ctas = t.cta.cluster.ctas
    if not mask or mask >> len(ctas):
        raise EmulationError(f"{what}: ctaMask 0x{mask:x} must name CTAs of the cluster (ranks "
                             f"0..{len(ctas) - 1}, A26)")
    out = []
    for r in range(len(ctas)):
        if mask >> r & 1:
            # .cta_group::2: the signal goes to the CTA of the destination's pair that has the
            # parity of the CTA holding mbar (PTX ISA, cp.async.bulk.tensor)
            mb_rank = (r & ~1) | (mcta.rank & 1) if cg == 2 else r
            if mb_rank >= len(ctas):
                raise EmulationError(f"{what}: .cta_group::2 needs a CTA pair for rank {r}")
            out.append((ctas[r], off, ctas[mb_rank], moff))
    return out


def _peer(M, cta, what):
    ctas = cta.cluster.ctas
    if (cta.rank ^ 1) >= len(ctas):
        raise EmulationError(f"{what}: .cta_group::2 needs a CTA pair, but CTA rank {cta.rank} "
                             f"has no peer")
    return ctas[cta.rank ^ 1]


def _gather(M, gaddr, goff, inb, tm, what):
    """The box's bytes, (elements, elem_size) uint8, out-of-bounds elements filled."""
    esize = tm.elem_size
    if inb.all():  # (the common box: no fill)
        view, base = _global_view(M, gaddr, goff, esize, what)
        return tm.convert_load(view[(goff - base)[:, None] + np.arange(esize)])
    data = np.empty((goff.size, esize), dtype=np.uint8)
    data[:] = np.frombuffer(tm.fill_bytes(), dtype=np.uint8)
    if inb.any():
        view, base = _global_view(M, gaddr, goff[inb], esize, what)
        data[inb] = tm.convert_load(view[(goff[inb] - base)[:, None] + np.arange(esize)])
    return data


def _global_view(M, gaddr, goff, esize, what):
    """A writable uint8 view of the allocation holding global bytes gaddr + goff (+ esize) and
    the goff its first byte has."""
    lo, hi = int(goff.min()), int(goff.max()) + esize
    try:
        buf, o = M.gmem.find(gaddr + lo, hi - lo)
    except EmulationError as e:
        raise EmulationError(f"{what}: the tensor map's box reaches global bytes outside the "
                             f"array it was given: {e}") from None
    return np.frombuffer(buf, dtype=np.uint8), lo - o


def _write_smem(M, cta, phys, data, rec, what):
    sm = cta.smem
    esize = data.shape[1]
    lo, hi = int(phys.min()), int(phys.max()) + esize
    if lo < 0 or hi > sm.size:
        raise EmulationError(f"{what}: writes shared bytes [0x{lo:x}, 0x{hi:x}) of CTA {cta.idx}, "
                             f"outside its {sm.size}-byte shared memory")
    idx = (phys[:, None] + np.arange(esize)).reshape(-1)
    if sm.mbarriers and np.frombuffer(sm.mbar_mask, dtype=np.uint8)[idx].any():
        raise EmulationError(f"{what}: writes over a live mbarrier object in CTA {cta.idx}")
    check_fenced(M, cta, idx, f"{what} (async proxy) overwrites", rec.line, rec.issuer)
    sm.np[idx] = data.reshape(-1)
    sm.wtag[idx] = 0  # no generic-proxy writer any more
    tma.SHARED.of(cta).tag(idx, rec.id)


def _in_flight(M, ctas, idx, rec):
    """Tag a held copy's destination bytes with it before they land, so that a thread reading or
    writing them meanwhile races with it (tma.check_tma_written: no phase yet)."""
    idx = idx.reshape(-1)
    for cta in ctas:
        if idx.size and idx.min() >= 0 and idx.max() < cta.smem.size:
            tma.SHARED.of(cta).tag(idx, rec.id)


def _complete(M, rec, cta, mb_cta, mb_off, nbytes, what):
    mb = mb_cta.smem.mbarriers.get(mb_off)
    if mb is None:
        raise EmulationError(f"{what}: complete_tx on an uninitialised mbarrier at shared "
                             f"0x{mb_off:x} of CTA {mb_cta.idx} (no mbarrier.init)")
    rec.phase[cta] = (mb, mb.completed)
    mbar.complete_tx(M, mb, nbytes)



def _decode_tensor_store(d, inst, dims):
    p = inst.parts
    check_qualifiers(d, inst, {"cp", "async", "bulk", "tensor", p[4], "global", "shared::cta",
                          "tile", "bulk_group"})
    if "bulk_group" not in p:
        raise d.error("a cp.async.bulk.tensor store completes with .bulk_group")
    te, coords, se = tensor_store_operands(d, inst, dims)
    return d.compile([f"_store(M, t, {te}, [{', '.join(coords)}], {se}, {inst.line})"],
                     {"_store": tensor_store})


def tensor_store_operands(d, inst, dims):
    """(tensor map, coordinates, shared source) expressions of a shared -> global tensor copy's
    `[tensorMap, {..}], [srcMem]{, policy}` (the store, and cp.reduce.async.bulk.tensor)."""
    ops = inst.operands
    want = 2 + ("L2::cache_hint" in inst.parts)
    if len(ops) != want:
        raise d.error(f"expected {want} operands `[tensorMap, {{..}}], [srcMem]"
                      f"{', policy' if want == 3 else ''}`, got {len(ops)}")
    te, coords = tmap_operand(d, ops[0])
    if len(coords) != dims:
        raise d.error(f".{dims}d takes {dims} coordinates, got {len(coords)}")
    se, _ = d.addr_expr(ops[1])
    register_hooks(d)
    return te, coords, se


def tensor_store(M, t, taddr, coords, src, line):
    what = "cp.async.bulk.tensor store"
    tm, gaddr, coords, src = store_box(M, t, taddr, coords, src, what)
    goff, inb, phys = tm.box(coords, src, bound0=tm.store_bound0())
    esize = tm.elem_size
    rec = new_record(M, t, line, what)
    idx = _read_smem(M, t, t.cta, phys, esize, rec, what)
    data = t.cta.smem.np[idx].reshape(-1, esize)
    if inb.any():
        view, base = _global_view(M, gaddr, goff[inb], esize, what)
        rec.writes.append((view, ((goff[inb] - base)[:, None] + np.arange(esize)).reshape(-1),
                           data[inb].reshape(-1).copy()))
    tma.GROUPS.of(t).cur.append(rec)
    tma.hold_writes(M, t, rec, line)
    M.progress += 1


def store_box(M, t, taddr, coords, src, what):
    """(map, global address, coordinates, shared offset) of a shared -> global tensor copy, its box and
    source checked (the store, and cp.reduce.async.bulk.tensor)."""
    src = own_offset(t.cta, src)
    tm, gaddr, coords = _mapped_box(M, taddr, coords, what, "A25", t)
    if src % SMEM_BOX_ALIGN:
        raise EmulationError(f"{what}: shared source 0x{src:x} is not {SMEM_BOX_ALIGN}-byte "
                             f"aligned (A24)")
    if min(coords) < 0:
        raise EmulationError(f"{what}: negative box coordinates {coords} (a fault on the H200: "
                             f"CUDA_ERROR_ILLEGAL_INSTRUCTION, A27)")
    return tm, gaddr, coords, src


def _read_smem(M, t, cta, phys, esize, rec, what):
    sm = cta.smem
    lo, hi = int(phys.min()), int(phys.max()) + esize
    if lo < 0 or hi > sm.size:
        raise EmulationError(f"{what}: reads shared bytes [0x{lo:x}, 0x{hi:x}) of CTA {cta.idx}, "
                             f"outside its {sm.size}-byte shared memory")
    idx = (phys[:, None] + np.arange(esize)).reshape(-1)
    check_fenced(M, cta, idx, f"{what} (async proxy) reads", rec.line, rec.issuer)
    check_tma_written(M, t, cta, idx, f"{what} source")
    rec.src = (cta, lo, hi)
    tma.SHARED.of(cta).reading.append((lo, hi, rec))
    return idx



# ------------------------------------------------------------------------------- non-tensor bulk
def decode_bulk(d, inst):
    p = inst.parts  # cp async bulk dst src ...
    dst, src = space_of(p, 3), space_of(p, 4)
    known = {"cp", "async", "bulk", p[3] if len(p) > 3 else "", p[4] if len(p) > 4 else "",
             "mbarrier::complete_tx::bytes", "multicast::cluster", "bulk_group"}
    check_qualifiers(d, inst, known)
    ops = inst.operands
    hint = "L2::cache_hint" in p
    if dst in ("shared", "cluster") and src in ("global", "shared"):
        if src == "shared" and dst != "cluster":
            raise d.error("cp.async.bulk shared -> shared copies .shared::cluster.shared::cta")
        if "mbarrier::complete_tx::bytes" not in p:
            raise d.error("cp.async.bulk into shared memory completes with "
                          ".mbarrier::complete_tx::bytes")
        multicast = "multicast::cluster" in p
        if multicast and (dst, src) != ("cluster", "global"):
            raise d.error(".multicast::cluster needs .shared::cluster.global")
        want = 4 + multicast + hint
        if len(ops) != want:
            raise d.error(f"expected {want} operands `[dstMem], [srcMem], size, [mbar]"
                          f"{', ctaMask' if multicast else ''}{', policy' if hint else ''}`, "
                          f"got {len(ops)}")
        de, _ = d.addr_expr(ops[0])
        se, _ = d.addr_expr(ops[1])
        me, _ = d.addr_expr(ops[3])
        mask = d.src(ops[4], 16) if multicast else "None"
        register_hooks(d)
        return d.compile([f"_bl(M, t, {de}, '{dst}', {se}, '{src}', {d.src(ops[2], 32)}, {me}, "
                          f"{mask}, {inst.line})"], {"_bl": bulk_load})
    if dst == "global" and src == "shared":
        if "bulk_group" not in p:
            raise d.error("cp.async.bulk into global memory completes with .bulk_group")
        want = 3 + hint
        if len(ops) != want:
            raise d.error(f"expected {want} operands `[dstMem], [srcMem], size"
                          f"{', policy' if hint else ''}`, got {len(ops)}")
        de, _ = d.addr_expr(ops[0])
        se, _ = d.addr_expr(ops[1])
        register_hooks(d)
        return d.compile([f"_bs(M, t, {de}, {se}, {d.src(ops[2], 32)}, {inst.line})"],
                         {"_bs": bulk_store})
    raise d.error("cp.async.bulk copies .shared::{cta,cluster}.global, "
                  ".shared::cluster.shared::cta or .global.shared::cta")


def bulk_load(M, t, dst, dst_space, src, src_space, size, mb_addr, mask, line):
    what = "cp.async.bulk"
    if src_space == "shared":
        src = own_offset(t.cta, src)
    check_bulk(what, dst, src, size)
    if mask is None:
        cta, off = M.shared_target(t, dst, dst_space)
        mcta, moff = M.shared_target(t, mb_addr, dst_space)
        if mcta is not cta:
            raise EmulationError(f"{what}: the mbarrier (CTA rank {mcta.rank}) must be in the "
                                 f"destination's CTA (rank {cta.rank})")
        targets = [(cta, off, mcta, moff)]
    else:
        targets = _destinations(M, t, dst, dst_space, mb_addr, mask, 1, what)
    if src_space == "global":
        buf, o = M.gmem.find(src, size)
        data = np.frombuffer(buf, dtype=np.uint8)[o:o + size].copy()
    else:
        sm = t.cta.smem
        sm.check(src, size, f"{what} source")
        idx = np.arange(src, src + size)
        check_fenced(M, t.cta, idx, f"{what} (async proxy) reads", line, t)
        check_tma_written(M, t, t.cta, idx, f"{what} source")
        data = sm.np[src:src + size].copy()
    rec = new_record(M, t, line, what)

    def land():  # the bytes land, then complete_tx signals them (in flight under a policy)
        for cta, off, mb_cta, mb_off in targets:
            _write_smem(M, cta, np.arange(off, off + size), data[:, None], rec, what)
            _complete(M, rec, cta, mb_cta, mb_off, size, what)
    if M.policy is not None:
        for cta, off, _, _ in targets:
            _in_flight(M, [cta], np.arange(off, off + size), rec)
    M.complete_async(land, what, line, t)
    M.progress += 1


def bulk_store(M, t, dst, src, size, line):
    what = "cp.async.bulk store"
    src = own_offset(t.cta, src)
    check_bulk(what, dst, src, size)
    if M.classify_generic(dst) != "global":
        raise EmulationError(f"{what}: destination 0x{dst:x} is not a global address")
    buf, o = M.gmem.find(dst, size)
    rec = new_record(M, t, line, what)
    idx = _read_smem(M, t, t.cta, np.arange(src, src + size), 1, rec, what)
    rec.writes.append((np.frombuffer(buf, dtype=np.uint8), np.arange(o, o + size),
                       t.cta.smem.np[idx].copy()))
    tma.GROUPS.of(t).cur.append(rec)
    tma.hold_writes(M, t, rec, line)
    M.progress += 1

