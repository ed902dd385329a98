"""The tensor memory accelerator: cp.async.bulk.tensor (tile mode, 1D-5D), cp.async.bulk, their
bulk async-groups and prefetches, written from the PTX ISA ("Data Movement and Conversion
Instructions": cp.async.bulk.tensor, cp.async.bulk, cp.async.bulk.prefetch{.tensor},
cp.async.bulk.commit_group, cp.async.bulk.wait_group; "prefetch, prefetchu" for the tensormap
forms) and the CUDA driver's tensor-map documentation (sim/tensor_map.py):

    cp.async.bulk.tensor.Nd.shared::{cta,cluster}.global{.tile}.mbarrier::complete_tx::bytes
        {.multicast::cluster}{.cta_group::1|2}{.L2::cache_hint}
        [dstMem], [tensorMap, {c0, ..}], [mbar]{, ctaMask}{, policy};
    cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group{.L2::cache_hint}
        [tensorMap, {c0, ..}], [srcMem]{, policy};
    cp.async.bulk.shared::{cta,cluster}.global.mbarrier::complete_tx::bytes{.multicast::cluster}
        [dstMem], [srcMem], size, [mbar]{, ctaMask}{, policy};
    cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [dstMem], [srcMem],
        size, [mbar];
    cp.async.bulk.global.shared::cta.bulk_group [dstMem], [srcMem], size{, policy};
    cp.async.bulk.commit_group;  cp.async.bulk.wait_group{.read} N;
    cp.async.bulk.prefetch{.tensor.Nd}.L2.global ...;  prefetch{.param,.const}.tensormap [a];

Model (one legal schedule; docs/emulator.md §9):

* A load (global -> shared) is performed at issue: the box is read from global memory, written
  into the shared memory of every destination CTA (swizzled on absolute addresses, out-of-bounds
  elements filled), and its bytes complete_tx on the destination's mbarrier.  The written bytes are
  tagged with the mbarrier phase they belong to: a generic load or store of them by a thread that
  has not observed that phase complete (its own wait, or knowledge carried by a barrier) is a race.
  Generic-proxy stores into the destination that their writer did not follow by fence.proxy.async
  race with the async-proxy write (PTX memory model, "proxies").
* A store (shared -> global) reads shared memory at issue, after the same fence check (a
  generic-proxy store not fenced by its writer is a race: CUTLASS's tma_store_fence), and writes
  global memory when the issuer's wait_group covers its bulk group (or at its exit, with a
  violation: nothing then guarantees the copy completes).  Generic stores into its source before
  a covering wait_group{.read} race with the copy's read.
* Tensor maps are found by the generic address (``cvta.param``) of the ``.param`` object a
  :class:`TensorMap` is bound to (prefetch.param.tensormap also by the parameter itself); the
  128 bytes are never read.

Kept: per CTA the bytes TMA wrote (record id per byte), per thread its bulk groups, per kernel
the records.  Hooks: shared loads and stores (the races above) and thread exit.
"""

from __future__ import annotations

import numpy as np

from .. import memory as mem
from ..errors import EmulationError
from ..state import Kept
from ..tensor_map import TensorMap
from . import mbarrier as mbar

TILE_DIMS = {"1d": 1, "2d": 2, "3d": 3, "4d": 4, "5d": 5}
#: a TMA load or store's shared-memory box must start on this boundary (CUDA C++ Programming
#: Guide, "alignment-multi-dim-tma"; A24)
SMEM_BOX_ALIGN = 128
#: cp.async.bulk: addresses and size are multiples of 16 bytes (PTX ISA cp.async.bulk)
BULK_ALIGN = 16
_HINTS = {"L2::cache_hint"}


class TmaRecord:
    """One copy.  A load: ``phase``, per destination CTA, the mbarrier its bytes complete on and
    the index of the phase they belong to.  A store: ``writes``, its pending global writes, and
    ``src``, the shared bytes it reads."""
    __slots__ = ("id", "line", "issuer", "what", "phase", "writes", "src")

    def __init__(self, rid, line, issuer, what):
        self.id = rid
        self.line = line
        self.issuer = issuer
        self.what = what
        self.phase = {}  # destination CTA -> (mbarrier, phase index)
        self.writes = []  # (uint8 view of a global allocation, byte indices, bytes)
        self.src = None  # (CTA, lo, hi)


class _Groups:
    __slots__ = ("cur", "groups")

    def __init__(self, t):
        self.cur = []
        self.groups = []


class _Shared:
    """A CTA's shared memory as TMA sees it: ``tags``, per byte the id of the load that wrote it
    (0: none); ``reading``, the copies whose source read is not known complete: [(lo, hi, rec)]."""
    __slots__ = ("tags", "reading")

    def __init__(self, cta):
        self.tags = np.zeros(cta.smem.size, dtype=np.int32)
        self.reading = []


RECORDS = Kept("tma", "machine", lambda M: {})
GROUPS = Kept("tma", "thread", _Groups)
SHARED = Kept("tma", "cta", _Shared)


def _record(M, t, line, what):
    records = RECORDS.of(M)
    rec = TmaRecord(len(records) + 1, line, t, what)
    records[rec.id] = rec
    return rec


# ------------------------------------------------------------------------------- operands
def _qualifiers(d, inst, known):
    extra = [q for q in inst.parts[1:] if q not in known and q not in _HINTS]
    if extra:
        raise d.error(f"{inst.parts[0]}.{'.'.join(inst.parts[1:3])}: qualifier(s) "
                      f"{['.' + q for q in extra]} are not emulated by tile-sim")


def _tmap_operand(d, op):
    """[tensorMap, {c0, ..}] -> (python expression of the map's generic address, coordinate
    expressions)."""
    if op[0] != "tensor":
        raise d.error("expected `[tensorMap, {coordinates}]`")
    base, off, coords = op[1], op[2], op[3]
    if base[0] != "reg":  # ptxas: "State space mismatch between instruction and address"
        raise d.error("the tensor map operand must be a register holding its generic address "
                      "(mov.b64 %rd, param; cvta.param.u64 %rd, %rd)")
    ae = d.src(base, 64)
    ae = f"({ae} + {off})" if off else ae
    if coords[0] != "vec":
        raise d.error("tensor coordinates must be a vector `{c0, ..}`")
    return ae, [d.src(c, 32, signed=True) for c in coords[1]]


def tensor_map_at(M, addr, what) -> tuple[TensorMap, int]:
    """The (map, its globalAddress) bound to the .param object at generic address ``addr``."""
    p = addr - mem.PARAM_WINDOW
    found = M.tensor_maps.get(p)
    if found is None:
        where = (f"parameter offset {p}" if 0 <= p < mem.PARAM_WINDOW_SIZE
                 else f"generic address 0x{addr:x}")
        raise EmulationError(f"{what}: {where} is not a tensor-map parameter (pass a "
                             f"tile_mlir.sim.TensorMap for a `.param .align 64 .b8 name[128]` "
                             f"and give the instruction its cvta.param address)")
    return found


def _space(parts, i):
    q = parts[i] if i < len(parts) else ""
    return {"shared::cta": "shared", "shared::cluster": "cluster", "global": "global"}.get(q)


# ------------------------------------------------------------------------------- tensor copies
def decode_bulk_tensor(d, inst):
    p = inst.parts  # cp async bulk tensor Nd dst src ...
    dims = TILE_DIMS.get(p[4] if len(p) > 4 else "")
    if dims is None:
        raise d.error("cp.async.bulk.tensor needs a dimension .1d .. .5d")
    dst, src = _space(p, 5), _space(p, 6)
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
    _qualifiers(d, inst, known)
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
    te, coords = _tmap_operand(d, ops[1])
    if len(coords) != dims:
        raise d.error(f".{dims}d takes {dims} coordinates, got {len(coords)}")
    me, _ = d.addr_expr(ops[2])
    mask = d.src(ops[3], 16) if multicast else "None"
    _hooks(d)
    return d.compile([f"_load(M, t, {de}, '{dst_space}', {te}, [{', '.join(coords)}], {me}, "
                      f"{mask}, {cg}, {inst.line})"], {"_load": tensor_load})


def _mapped_box(M, taddr, coords, what, why):
    """The tensor map at `taddr` and its global address, once the box's coordinates fit it: one per
    dimension, the innermost a multiple of 16 bytes (`why` cites the row that says so)."""
    tm, gaddr = tensor_map_at(M, taddr, what)
    tm.check_executable(what)
    if len(coords) != tm.rank:
        raise EmulationError(f"{what}: .{len(coords)}d for a tensor map of rank {tm.rank}")
    if coords[0] * tm.elem_size % 16:
        raise EmulationError(f"{what}: the innermost coordinate {coords[0]} times the element "
                             f"size {tm.elem_size} is not a multiple of 16 bytes ({why})")
    return tm, gaddr


def tensor_load(M, t, dst, dst_space, taddr, coords, mb_addr, mask, cg, line):
    what = "cp.async.bulk.tensor"
    tm, gaddr = _mapped_box(M, taddr, coords, what, "a fault on the H200, A25")
    targets = _destinations(M, t, dst, dst_space, mb_addr, mask, cg, what)
    goff, inb, phys = tm.box(coords, targets[0][1])
    data = _gather(M, gaddr, goff, inb, tm, what)
    rec = _record(M, t, line, what)
    for cta, _, mb_cta, mb_off in targets:  # one offset: multicast lands at the same one
        _write_smem(M, cta, phys, data, rec, what)
        _complete(M, rec, cta, mb_cta, mb_off, tm.box_bytes, what)
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
    check_fenced(M, cta, idx, f"{what} (async proxy) overwrites", rec.line)
    sm.np[idx] = data.reshape(-1)
    sm.wtag[idx] = 0  # no generic-proxy writer any more
    SHARED.of(cta).tags[idx] = rec.id


def _complete(M, rec, cta, mb_cta, mb_off, nbytes, what):
    mb = mb_cta.smem.mbarriers.get(mb_off)
    if mb is None:
        raise EmulationError(f"{what}: complete_tx on an uninitialised mbarrier at shared "
                             f"0x{mb_off:x} of CTA {mb_cta.idx} (no mbarrier.init)")
    rec.phase[cta] = (mb, mb.completed)
    mbar.complete_tx(M, mb, nbytes)


def check_fenced(M, cta, idx, what, line):
    """Shared bytes ``idx`` read or overwritten by the async proxy: each generic-proxy writer
    must have executed fence.proxy.async since its store (docs/emulator.md §9)."""
    tags = cta.smem.wtag[idx]
    nz = tags[tags != 0]
    if not nz.size:
        return
    for tag in np.unique(nz):
        gid, epoch = (int(tag) >> 32) - 1, int(tag) & 0xFFFFFFFF
        w = M.thread_by_gid(gid)
        if w.fence_count == epoch:
            addr = int(idx[np.argmax(tags == tag)])
            M.violation(f"{what} shared byte 0x{addr:x} of CTA {cta.idx} written by a "
                        f"generic-proxy store of thread {M.where(w)} that was not followed by "
                        f"fence.proxy.async(.shared::cta) by the writer",
                        key=("tma-proxy", line, gid))


def _decode_tensor_store(d, inst, dims):
    p = inst.parts
    _qualifiers(d, inst, {"cp", "async", "bulk", "tensor", p[4], "global", "shared::cta",
                          "tile", "bulk_group"})
    if "bulk_group" not in p:
        raise d.error("a cp.async.bulk.tensor store completes with .bulk_group")
    ops = inst.operands
    want = 2 + ("L2::cache_hint" in p)
    if len(ops) != want:
        raise d.error(f"expected {want} operands `[tensorMap, {{..}}], [srcMem]"
                      f"{', policy' if want == 3 else ''}`, got {len(ops)}")
    te, coords = _tmap_operand(d, ops[0])
    if len(coords) != dims:
        raise d.error(f".{dims}d takes {dims} coordinates, got {len(coords)}")
    se, _ = d.addr_expr(ops[1])
    _hooks(d)
    return d.compile([f"_store(M, t, {te}, [{', '.join(coords)}], {se}, {inst.line})"],
                     {"_store": tensor_store})


def tensor_store(M, t, taddr, coords, src, line):
    what = "cp.async.bulk.tensor store"
    tm, gaddr = _mapped_box(M, taddr, coords, what, "A25")
    if src % SMEM_BOX_ALIGN:
        raise EmulationError(f"{what}: shared source 0x{src:x} is not {SMEM_BOX_ALIGN}-byte "
                             f"aligned (A24)")
    if min(coords) < 0:
        raise EmulationError(f"{what}: negative box coordinates {coords} (a fault on the H200: "
                             f"CUDA_ERROR_ILLEGAL_INSTRUCTION, A27)")
    goff, inb, phys = tm.box(coords, src, bound0=tm.store_bound0())
    esize = tm.elem_size
    rec = _record(M, t, line, what)
    idx = _read_smem(M, t, t.cta, phys, esize, rec, what)
    data = t.cta.smem.np[idx].reshape(-1, esize)
    if inb.any():
        view, base = _global_view(M, gaddr, goff[inb], esize, what)
        rec.writes.append((view, ((goff[inb] - base)[:, None] + np.arange(esize)).reshape(-1),
                           data[inb].reshape(-1).copy()))
    GROUPS.of(t).cur.append(rec)
    M.progress += 1


def _read_smem(M, t, cta, phys, esize, rec, what):
    sm = cta.smem
    lo, hi = int(phys.min()), int(phys.max()) + esize
    if lo < 0 or hi > sm.size:
        raise EmulationError(f"{what}: reads shared bytes [0x{lo:x}, 0x{hi:x}) of CTA {cta.idx}, "
                             f"outside its {sm.size}-byte shared memory")
    idx = (phys[:, None] + np.arange(esize)).reshape(-1)
    check_fenced(M, cta, idx, f"{what} (async proxy) reads", rec.line)
    _check_tma_written(M, t, cta, idx, f"{what} source")
    rec.src = (cta, lo, hi)
    SHARED.of(cta).reading.append((lo, hi, rec))
    return idx


# ------------------------------------------------------------------------------- non-tensor bulk
def decode_bulk(d, inst):
    p = inst.parts  # cp async bulk dst src ...
    dst, src = _space(p, 3), _space(p, 4)
    known = {"cp", "async", "bulk", p[3] if len(p) > 3 else "", p[4] if len(p) > 4 else "",
             "mbarrier::complete_tx::bytes", "multicast::cluster", "bulk_group"}
    _qualifiers(d, inst, known)
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
        _hooks(d)
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
        _hooks(d)
        return d.compile([f"_bs(M, t, {de}, {se}, {d.src(ops[2], 32)}, {inst.line})"],
                         {"_bs": bulk_store})
    raise d.error("cp.async.bulk copies .shared::{cta,cluster}.global, "
                  ".shared::cluster.shared::cta or .global.shared::cta")


def _check_bulk(what, dst, src, size):
    for name, a in (("destination", dst), ("source", src)):
        if a % BULK_ALIGN:
            raise EmulationError(f"{what}: {name} address 0x{a:x} is not {BULK_ALIGN}-byte "
                                 f"aligned")
    if size <= 0 or size % BULK_ALIGN:
        raise EmulationError(f"{what}: size {size} must be a positive multiple of {BULK_ALIGN}")


def bulk_load(M, t, dst, dst_space, src, src_space, size, mb_addr, mask, line):
    what = "cp.async.bulk"
    _check_bulk(what, dst, src, size)
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
        check_fenced(M, t.cta, idx, f"{what} (async proxy) reads", line)
        _check_tma_written(M, t, t.cta, idx, f"{what} source")
        data = sm.np[src:src + size].copy()
    rec = _record(M, t, line, what)
    for cta, off, mb_cta, mb_off in targets:
        _write_smem(M, cta, np.arange(off, off + size), data[:, None], rec, what)
        _complete(M, rec, cta, mb_cta, mb_off, size, what)
    M.progress += 1


def bulk_store(M, t, dst, src, size, line):
    what = "cp.async.bulk store"
    _check_bulk(what, dst, src, size)
    if M.classify_generic(dst) != "global":
        raise EmulationError(f"{what}: destination 0x{dst:x} is not a global address")
    buf, o = M.gmem.find(dst, size)
    rec = _record(M, t, line, what)
    idx = _read_smem(M, t, t.cta, np.arange(src, src + size), 1, rec, what)
    rec.writes.append((np.frombuffer(buf, dtype=np.uint8), np.arange(o, o + size),
                       t.cta.smem.np[idx].copy()))
    GROUPS.of(t).cur.append(rec)
    M.progress += 1


# ------------------------------------------------------------------------------- bulk groups
def decode_commit_group(d, inst):
    d.operands(0)
    return d.compile(["_commit(t)"], {"_commit": commit_group})


def commit_group(t):
    st = GROUPS.of(t)
    st.groups.append(st.cur)  # an empty group is legal and completes at once
    st.cur = []


def decode_wait_group(d, inst):
    ops = d.operands(1)
    extra = [q for q in inst.parts[4:] if q != "read"]
    if extra:
        raise d.error(f"unknown cp.async.bulk.wait_group qualifier(s) {extra}")
    if ops[0][0] != "imm" or not 0 <= ops[0][1] <= 63:
        raise d.error("cp.async.bulk.wait_group needs an integer constant N in 0..63")
    return d.compile([f"_wait(M, t, {ops[0][1]})"], {"_wait": wait_group})


def wait_group(M, t, n):
    """wait_group{.read} N: all but the N most recent groups complete.  Their sources are read
    and their writes made (performing the writes at .read too is one legal schedule)."""
    st = GROUPS.of(t)
    k = len(st.groups) - n
    if k <= 0:
        return
    done = [rec for g in st.groups[:k] for rec in g]
    st.groups = st.groups[k:]
    _retire(M, done)


def _retire(M, recs):
    for rec in recs:
        for view, idx, data in rec.writes:
            view[idx] = data
        rec.writes = []
        if rec.src is not None:
            cta = rec.src[0]
            sh = SHARED.of(cta)
            sh.reading = [e for e in sh.reading if e[2] is not rec]
    M.progress += 1


# ------------------------------------------------------------------------------- prefetches
def decode_prefetch_tensor(d, inst):
    p = inst.parts  # cp async bulk prefetch tensor Nd L2 global ...
    dims = TILE_DIMS.get(p[5] if len(p) > 5 else "")
    if dims is None or p[6:8] != ["L2", "global"]:
        raise d.error("expected cp.async.bulk.prefetch.tensor.Nd.L2.global{.tile}")
    _qualifiers(d, inst, {"cp", "async", "bulk", "prefetch", "tensor", p[5], "L2", "global",
                          "tile"})
    ops = d.operands(1, 2)
    te, coords = _tmap_operand(d, ops[0])
    if len(coords) != dims:
        raise d.error(f".{dims}d takes {dims} coordinates, got {len(coords)}")
    return d.compile([f"_pf(M, {te}, {dims})"], {"_pf": prefetch_tensor})


def prefetch_tensor(M, taddr, dims):
    """A hint: no effect but the checks a real prefetch makes of its operands."""
    tm, _ = tensor_map_at(M, taddr, "cp.async.bulk.prefetch.tensor")
    if tm.rank != dims:
        raise EmulationError(f"cp.async.bulk.prefetch.tensor: .{dims}d for a tensor map of rank "
                             f"{tm.rank}")


def decode_prefetch_bulk(d, inst):
    if inst.parts[4:6] != ["L2", "global"]:
        raise d.error("expected cp.async.bulk.prefetch.L2.global [srcMem], size")
    _qualifiers(d, inst, {"cp", "async", "bulk", "prefetch", "L2", "global"})
    ops = d.operands(2, 3)
    se, _ = d.addr_expr(ops[0])
    return d.compile([f"_chk(M, {se}, {d.src(ops[1], 32)})"], {"_chk": _prefetch_bulk})


def _prefetch_bulk(M, src, size):
    _check_bulk("cp.async.bulk.prefetch", 0, src, size)
    M.gmem.find(src, size)


def decode_prefetch_tensormap(d, inst):
    """prefetch{.const,.param}.tensormap [a]: the address must name a tensor map."""
    ops = d.operands(1)
    op = ops[0]
    if op[0] != "addr":
        raise d.error("prefetch.tensormap needs `[a]`")
    base = op[1]
    if base[0] == "sym":
        space, val = d.sym(base[1])
        if space != "param":
            raise d.error(f"`{base[1].name}` is not a kernel parameter")
        ae = str(mem.PARAM_WINDOW + val + op[2])
    else:
        ae, _ = d.addr_expr(op)
        if "param" in inst.parts:  # a .param-space address, not a generic one
            ae = f"({ae} + {mem.PARAM_WINDOW})"
    return d.compile([f"_tm(M, {ae}, 'prefetch.tensormap')"], {"_tm": tensor_map_at})


# ------------------------------------------------------------------------------- race checks
def _hooks(d):
    d.M.hooks.register(shared_load=check_load, shared_store=check_store, thread_exit=check_exit)


def _check_tma_written(M, t, cta, idx, what):
    sh = SHARED.peek(cta)
    if sh is None:
        return
    ids = sh.tags[idx]
    if not ids.any():
        return
    records = RECORDS.of(M)
    for rid in np.unique(ids[ids != 0]):
        rec = records[int(rid)]
        mb, phase = rec.phase[cta]
        if t.seen.get(mb.uid, -1) <= phase:
            M.violation(f"{what} at shared 0x{int(idx[np.argmax(ids == rid)]):x} of CTA "
                        f"{cta.idx} by thread {M.where(t)} races with the {rec.what} issued at "
                        f"line {rec.line}: the thread has not observed the completion of phase "
                        f"{phase} of its {mb.describe()} (mbarrier wait, or a barrier after one)",
                        key=("tma-race", what, rec.line), race=True)


def check_load(M, t, cta, off, n, what):
    """Shared-memory load observer: bytes a TMA load wrote are visible once the reader observed
    the mbarrier phase they complete."""
    sh = SHARED.peek(cta)
    if sh is not None and sh.tags[off:off + n].any():
        _check_tma_written(M, t, cta, np.arange(off, off + n), what)


def _check_gather(M, t, cta, chunks, what):
    """check_load for the 16-byte chunks at ``chunks`` at once (state.shared_observe_chunks)."""
    sh = SHARED.peek(cta)
    if sh is None:
        return
    idx = (chunks[:, None] + np.arange(16)).reshape(-1)
    if sh.tags[idx].any():
        _check_tma_written(M, t, cta, idx, what)


check_load.gather = _check_gather


def check_store(M, t, cta, off, n):
    """Shared-memory store observer: as a load for TMA-written bytes (which then hold generic
    data); and no store into the source of a store whose read is not yet complete."""
    sh = SHARED.peek(cta)
    if sh is None:
        return
    if sh.tags[off:off + n].any():
        _check_tma_written(M, t, cta, np.arange(off, off + n), "store")
        sh.tags[off:off + n] = 0
    if sh.reading:
        for lo, hi, rec in sh.reading:
            if off < hi and lo < off + n:
                M.violation(f"store to shared 0x{off:x} ({n} bytes) by thread {M.where(t)} "
                            f"overwrites the source of the {rec.what} issued at line {rec.line} "
                            f"by thread {M.where(rec.issuer)} before a cp.async.bulk.wait_group"
                            f"(.read) of its issuer covered it", key=("tma-src", rec.line), race=True)


def check_exit(M, t):
    """Thread-exit hook: bulk-group copies must be waited for (their writes are made now)."""
    st = GROUPS.peek(t)
    if st is None or not (st.cur or any(st.groups)):
        return
    recs = st.cur + [r for g in st.groups for r in g]
    st.cur, st.groups = [], []
    lines = sorted({r.line for r in recs})
    M.violation(f"thread {M.where(t)} exits with {len(recs)} bulk cop"
                f"{'y' if len(recs) == 1 else 'ies'} (line(s) {lines}) not waited for "
                f"(cp.async.bulk.commit_group, then cp.async.bulk.wait_group)",
                key=("tma-exit", t.gid))
    _retire(M, recs)
