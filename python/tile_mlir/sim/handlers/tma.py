"""The tensor memory accelerator's model, kept state, operands and race checks; its copies are in
tma_copy.py, its bulk groups and prefetches in tma_group.py.  Covered: cp.async.bulk.tensor (tile
mode, 1D-5D), cp.async.bulk, their bulk async-groups and prefetches, written from the PTX ISA
("Data Movement and Conversion Instructions": cp.async.bulk.tensor, cp.async.bulk,
cp.async.bulk.prefetch{.tensor}, cp.async.bulk.commit_group, cp.async.bulk.wait_group; "prefetch,
prefetchu" for the tensormap forms) and the CUDA driver's tensor-map documentation (sim/tensor_map.py):

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
  :class:`TensorMap` is bound to (prefetch.param.tensormap also by the parameter itself), or
  at any other address by their bytes in tile-sim's layout (tensormap_dev.py: maps copied and
  edited by the kernel).

Kept: per CTA the bytes TMA wrote (record id per byte), per thread its bulk groups, per kernel
the records.  Hooks: shared loads and stores (the races above) and thread exit.
"""

from __future__ import annotations

import numpy as np

from .. import memory as mem
from ..errors import EmulationError
from ..state import Kept, unfenced_writers
from ..tensor_map import TensorMap
from . import tensormap_dev

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
    (0: none), and ``version``, how often they changed; ``reading``, the copies whose source read
    is not known complete: [(lo, hi, rec)]; ``rids``: the load ids under an MMA operand's chunks
    (id(chunks) -> (chunks, version, ids)), as a K loop reads the same ring slots again and
    again and tags change only when a load lands or a store clears them; ``marked``: per byte 1
    where its tag is nonzero (a bytearray: a load or store of a few bytes asks it in C)."""
    __slots__ = ("tags", "version", "reading", "rids", "marked", "_marks", "_cover")

    def __init__(self, cta):
        self.tags = np.zeros(cta.smem.size, dtype=np.int32)
        self.version = 0
        self.reading = []
        self.rids = {}
        self.marked = bytearray(cta.smem.size)
        self._marks = np.frombuffer(self.marked, dtype=np.uint8)
        self._cover = None  # (reading, its length, bytearray of the bytes its entries span)

    def tag(self, idx, rid):
        """Bytes ``idx`` written by load ``rid``."""
        self.tags[idx] = rid
        self._marks[idx] = 1
        self.version += 1

    def clear(self, off, n):
        """Bytes [off, off + n) overwritten by a generic-proxy store: no load's any more."""
        self.tags[off:off + n] = 0
        self.marked[off:off + n] = bytes(n)
        self.version += 1

    def any(self, off, n) -> bool:
        """Whether a load's tag is on some of bytes [off, off + n)."""
        return self.marked.find(1, off, off + n) >= 0

    def reading_overlaps(self, off, n) -> bool:
        """Whether some entry of ``reading`` spans a byte of [off, off + n). ``reading`` is only appended
        to or replaced (never changed in place), so its identity and length tell when to recount."""
        r, c = self.reading, self._cover
        if c is None or c[0] is not r or c[1] != len(r):
            buf = bytearray(len(self.marked))
            for lo, hi, _ in r:
                buf[lo:hi] = b"\x01" * (hi - lo)
            c = self._cover = (r, len(r), buf)
        return c[2].find(1, off, off + n) >= 0


RECORDS = Kept("tma", "machine", lambda M: {})
GROUPS = Kept("tma", "thread", _Groups)
SHARED = Kept("tma", "cta", _Shared)


def new_record(M, t, line, what):
    records = RECORDS.of(M)
    rec = TmaRecord(len(records) + 1, line, t, what)
    records[rec.id] = rec
    return rec


# ------------------------------------------------------------------------------- operands
def check_qualifiers(d, inst, known):
    extra = [q for q in inst.parts[1:] if q not in known and q not in _HINTS]
    if extra:
        raise d.error(f"{inst.parts[0]}.{'.'.join(inst.parts[1:3])}: qualifier(s) "
                      f"{['.' + q for q in extra]} are not emulated by tile-sim")


def tmap_operand(d, op):
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


def tensor_map_at(M, addr, what, t=None) -> tuple[TensorMap, int]:
    """The (map, its globalAddress) at generic address ``addr``: the one bound to that .param
    object, else (with the thread ``t`` that reads it) the 128 bytes there in tile-sim's map
    layout, as tensormap.replace edits them (tensormap_dev.py)."""
    p = addr - mem.PARAM_WINDOW
    found = M.tensor_maps.get(p)
    if found is None:
        if t is not None and not (0 <= p < mem.PARAM_WINDOW_SIZE):
            return tensormap_dev.map_in_memory(M, t, addr, what)
        where = (f"parameter offset {p}" if 0 <= p < mem.PARAM_WINDOW_SIZE
                 else f"generic address 0x{addr:x}")
        raise EmulationError(f"{what}: {where} is not a tensor-map parameter (pass a "
                             f"tile_mlir.sim.TensorMap for a `.param .align 64 .b8 name[128]` "
                             f"and give the instruction its cvta.param address)")
    return found


def space_of(parts, i):
    q = parts[i] if i < len(parts) else ""
    return {"shared::cta": "shared", "shared::cluster": "cluster", "global": "global"}.get(q)


def check_bulk(what, dst, src, size):
    """cp.async.bulk{.prefetch}'s address and size alignment."""
    for name, a in (("destination", dst), ("source", src)):
        if a % BULK_ALIGN:
            raise EmulationError(f"{what}: {name} address 0x{a:x} is not {BULK_ALIGN}-byte "
                                 f"aligned")
    if size <= 0 or size % BULK_ALIGN:
        raise EmulationError(f"{what}: size {size} must be a positive multiple of {BULK_ALIGN}")


def distinct(a):
    """np.unique(a) of a 1-d array, sorting only the first of each run of equal neighbours (the
    bytes of one store or one copy share their tag: a 16 KiB box holds a few hundred runs)."""
    if a.size > 64:
        a = a[np.concatenate(([True], a[1:] != a[:-1]))]
    return np.unique(a)


def check_fenced(M, cta, idx, what, line, issuer=None):
    """Shared bytes ``idx`` read or overwritten by the async proxy (an operation ``issuer``
    issued): each generic-proxy store of them needs a proxy fence on a causality path to the
    access, by the writer or by the issuer after synchronising with it (state.unfenced_writers,
    docs/emulator.md §9)."""
    tags = cta.smem.wtag[idx]
    nz = tags[tags != 0]
    if not nz.size:
        return
    for tag, w in unfenced_writers(M, distinct(nz), issuer):
        addr = int(idx[np.argmax(tags == tag)])
        M.violation(f"{what} shared byte 0x{addr:x} of CTA {cta.idx} written by a "
                    f"generic-proxy store of thread {M.where(w)} with no fence.proxy.async "
                    f"between them (by the writer after the store, or by the issuing thread "
                    f"after synchronising with the writer)", key=("tma-proxy", line, w.gid))


# ------------------------------------------------------------------------------- race checks
def register_hooks(d):
    d.M.hooks.register(shared_load=check_load, shared_store=check_store, thread_exit=check_exit)


def check_tma_written(M, t, cta, idx, what, rids=None):
    """A read by ``t`` of shared bytes ``idx``: each TMA load that wrote some of them (``rids``,
    their ids in order, when known; ``idx`` then may be a function giving the bytes, needed
    for a message only) must be complete in the reader's view."""
    sh = SHARED.peek(cta)
    if sh is None:
        return
    if rids is None:
        ids = sh.tags[idx]
        if not ids.any():
            return
        rids = record_ids(ids)
    records = RECORDS.of(M)
    for rid in rids:
        rec = records[rid]
        if cta not in rec.phase:  # held in flight by a schedule policy (sim/explore/): not landed
            M.violation(f"{what} of shared memory of CTA {cta.idx} by thread {M.where(t)} "
                        f"races with the {rec.what} issued at line {rec.line}, whose bytes have "
                        f"not landed yet (its completion is still in flight)",
                        key=("tma-race", what, rec.line), race=True)
            continue
        mb, phase = rec.phase[cta]
        if t.seen.get(mb.uid, -1) <= phase:
            if callable(idx):
                idx = idx()
            ids = sh.tags[idx]
            M.violation(f"{what} at shared 0x{int(idx[np.argmax(ids == rid)]):x} of CTA "
                        f"{cta.idx} by thread {M.where(t)} races with the {rec.what} issued at "
                        f"line {rec.line}: the thread has not observed the completion of phase "
                        f"{phase} of its {mb.describe()} (mbarrier wait, or a barrier after one)",
                        key=("tma-race", what, rec.line), race=True)


def check_load(M, t, cta, off, n, what):
    """Shared-memory load observer: bytes a TMA load wrote are visible once the reader observed
    the mbarrier phase they complete."""
    sh = SHARED.peek(cta)
    if sh is not None and sh.any(off, n):
        check_tma_written(M, t, cta, lambda: np.arange(off, off + n), what, record_ids(sh.tags[off:off + n]))


def _check_gather(M, t, cta, chunks, what):
    """check_load for the 16-byte chunks at ``chunks`` at once (state.shared_observe_chunks)."""
    sh = SHARED.peek(cta)
    if sh is None:
        return
    hit = sh.rids.get(id(chunks))
    if hit is not None and hit[0] is chunks and hit[1] == sh.version:
        rids = hit[2]
    else:
        if chunks.flags.writeable:
            rids = record_ids(sh.tags[_bytes(chunks)])
        else:  # a cached operand layout's (mma_smem.py): kept alive here, with its bytes
            kept = _CHUNK_BYTES.get(id(chunks))
            if kept is None or kept[0] is not chunks:
                if len(_CHUNK_BYTES) >= 256:
                    _CHUNK_BYTES.clear()
                kept = _CHUNK_BYTES[id(chunks)] = (chunks, _bytes(chunks))
            rids = record_ids(sh.tags[kept[1]])
            sh.rids[id(chunks)] = (chunks, sh.version, rids)
    if rids:
        check_tma_written(M, t, cta, lambda: _bytes(chunks), what, rids)


#: id of a read-only chunk array -> (the array, its byte offsets), _check_gather's
_CHUNK_BYTES: dict = {}


def record_ids(ids: np.ndarray) -> list:
    """The distinct nonzero record ids of ``ids``, ascending (a store's or load's few bytes: no
    numpy sort)."""
    if ids.size <= 64:
        return sorted({i for i in ids.tolist() if i})
    return distinct(ids[ids != 0]).tolist()


def _bytes(chunks):
    return (chunks[:, None] + np.arange(16)).reshape(-1)


check_load.gather = _check_gather


def check_store(M, t, cta, off, n):
    """Shared-memory store observer: as a load for TMA-written bytes (which then hold generic
    data); and no store into the source of a store whose read is not yet complete."""
    sh = SHARED.peek(cta)
    if sh is None:
        return
    if sh.any(off, n):
        check_tma_written(M, t, cta, lambda: np.arange(off, off + n), "store", record_ids(sh.tags[off:off + n]))
        sh.clear(off, n)
    if sh.reading and sh.reading_overlaps(off, n):
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
    retire(M, recs)


def retire(M, recs):
    """Bulk-group copies complete: their global writes are made and their sources released."""
    for rec in recs:
        land_writes(rec)
        if rec.src is not None:
            cta = rec.src[0]
            sh = SHARED.of(cta)
            sh.reading = [e for e in sh.reading if e[2] is not rec]
    M.progress += 1


def land_writes(rec):
    """A bulk-group copy's global writes, made once: at the wait that covers it, or earlier where a
    schedule policy delivers them (any point between issue and that wait is legal)."""
    for view, idx, data in rec.writes:
        view[idx] = data(view[idx]) if callable(data) else data  # a reduction (bulk_reduce.py)
    rec.writes = []


def hold_writes(M, t, rec, line):
    """Under a schedule policy (sim/explore/): offer the copy's global writes for delivery before
    its wait; without one they are made at the wait, the latest legal point."""
    if M.policy is not None:
        M.policy.issue(M, lambda: land_writes(rec), f"{rec.what} writes", line, t)
