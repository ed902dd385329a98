"""The asynchronous-operation service of the tcgen05 family: the pending list that tcgen05.cp,
tcgen05.mma (and a future tcgen05.shift) join, tcgen05.commit, which retires it, and the race
checks built on it.  Handlers use only the public names here.

Model (docs/emulator.md A14): an operation reads shared memory at issue and tags its destination
tensor-memory cells; its writes happen when the issuing thread's next ``tcgen05.commit`` of the
same cta_group retires it, just before the commit's mbarrier arrive.  Every later commit of that
thread and cta_group covers it too (PTX ISA tcgen05.commit: the mbarrier tracks all prior async
tcgen05 operations of the executing thread), so a ``tcgen05.ld`` of a tagged cell is legal only
after the reading thread (or a thread it synchronised with through a barrier) observed the
completion of the phase of a covering commit AND executed ``tcgen05.fence::after_thread_sync``
afterwards (docs/tcgen05.md §10).

Kept (state.Kept): per thread its uncommitted operations, the mbarrier phases its commits arrive
on, whether a tcgen05.ld awaits tcgen05.wait::ld and its knowledge as of its last
fence::after_thread_sync; per CTA the shared ranges that in-flight operations read; per kernel
the operations by id and the .cta_group in use.  Hooks (:func:`observe`): shared stores into
those ranges are write-after-read races; a thread's exit retires its uncommitted operations (with
a warning).
"""

from __future__ import annotations

import numpy as np

from .. import findings
from ..errors import EmulationError
from ..memory import cells_at
from ..state import Kept, unfenced_writers
from . import mbarrier as mbar
from . import tcgen05_chain
from .tma import distinct


def cta_group(d, inst):
    for q in inst.parts:
        if q.startswith("cta_group::"):
            v = q.split("::")[1]
            if v not in ("1", "2"):
                raise d.error(f"invalid .cta_group::{v}")
            return int(v)
    return None


def check_cta_group(M, cg, line):
    if cg is None:
        return
    k = KERNEL.of(M)
    if k.cta_group is None:
        k.cta_group = (cg, line)
    elif k.cta_group[0] != cg:
        raise EmulationError(f"mixed .cta_group values in one kernel: ::{cg} here, "
                             f"::{k.cta_group[0]} at line {k.cta_group[1]} (every tcgen05 "
                             f"instruction of a kernel must use the same value)")


def cta_pair(M, t, cg):
    c = t.cta
    if cg != 2:
        return [c]
    ctas = c.cluster.ctas
    base = c.rank & ~1
    if base + 1 >= len(ctas):
        raise EmulationError(f".cta_group::2 needs a CTA pair, but CTA rank {c.rank} has no peer "
                             f"in a cluster of {len(ctas)} CTA(s)")
    return [ctas[base], ctas[base + 1]]


def uniform(parts, fn, what):
    vals = [fn(t) for t in parts]
    if any(v != vals[0] for v in vals):
        bad = [t.lane for t, v in zip(parts, vals) if v != vals[0]]
        raise EmulationError(f"{what} must be the same in every lane (lanes {bad[:8]} differ from "
                             f"lane {parts[0].lane}: {[hex(v) for v in vals[:2]]} ...)")
    return vals[0]


# ------------------------------------------------------------------------------- state
class _ThreadState:
    """``pending``: the thread's cps not yet committed; ``commits``: (cta_group, mbarrier, phase
    index) of each arrive of its commits, in issue order; ``ld_pending``: a tcgen05.ld of it not
    yet waited for (tcgen05.wait::ld); ``synced``: its knowledge (Thread.seen) as of its last
    tcgen05.fence::after_thread_sync."""
    __slots__ = ("pending", "commits", "ld_pending", "synced")

    def __init__(self, t):
        self.pending = []
        self.commits = []
        self.ld_pending = False
        self.synced = {}


class _KernelState:
    """``records``: every cp by id (TMEM cells name the cp that writes them); ``cta_group``:
    (value, line) of the first tcgen05 instruction with .cta_group."""
    __slots__ = ("records", "cta_group")

    def __init__(self, M):
        self.records = {}
        self.cta_group = None


class _Inflight(list):
    """(lo, hi, cp record): shared byte ranges that cps not known completed read.  ``cover``: per
    16-byte granule of the CTA's shared memory, how many of them cover it (a store over granules
    no cp reads asks no cp whether it completed); ``after``: the length when completed cps were
    last dropped (dropped again as the list doubles)."""
    __slots__ = ("cover", "after")

    def __init__(self, size):
        super().__init__()
        self.cover, self.after = np.zeros((size >> 4) + 1, np.int32), 16

    def add(self, lo, hi, op):
        self.append((lo, hi, op))
        self.cover[lo >> 4:(hi + 15) >> 4] += 1
        if len(self) > 2 * self.after:
            self.prune()

    def covers(self, off, n) -> bool:
        c = self.cover
        return bool(c[off >> 4] or c[(off + n - 1) >> 4]
                    or (n > 32 and c[off >> 4:(off + n) >> 4].any()))

    def prune(self):
        """Drop the cps that completed (completion never reverts)."""
        keep = []
        for e in self:
            if completed(e[2]):
                self.cover[e[0] >> 4:(e[1] + 15) >> 4] -= 1
            else:
                keep.append(e)
        self[:] = keep
        self.after = max(len(self), 16)


THREAD = Kept("tcgen05_async", "thread", _ThreadState)
INFLIGHT = Kept("tcgen05_async", "cta", lambda cta: _Inflight(cta.smem.size))
KERNEL = Kept("tcgen05_async", "machine", _KernelState)


class AsyncOp:
    """One asynchronous tcgen05 operation in flight.  ``opcode`` names it in race messages;
    ``writes`` are (cta, lanes, cols, values) of tensor memory, given at issue or computed by
    ``compute`` when the commit retires it (after the writes of everything issued before);
    ``first_commit`` indexes the issuer's commit list (set by :func:`issue`)."""
    __slots__ = ("id", "line", "cg", "_writes", "chunks", "retired", "first_commit", "forced",
                 "issuer", "opcode", "_compute", "chain")

    def __init__(self, M, opcode, line, cg, issuer, compute=None):
        records = KERNEL.of(M).records
        self.id = len(records) + 1
        records[self.id] = self
        self.opcode = opcode
        self.line = line
        self.cg = cg
        self.issuer = issuer
        self._writes = None if compute is not None else []
        self._compute = compute
        self.chunks = []  # (cta, ndarray of 16-byte chunk indices read)
        self.retired = False
        self.first_commit = 0
        self.forced = False
        self.chain = None  # an MMA's tcgen05_chain.Link: computed with the MMAs retired after it

    @property
    def writes(self):
        if self._writes is None:
            self._writes = self._compute()
        return self._writes


def observe(M):
    """Register the hooks every family member that issues an AsyncOp needs."""
    M.hooks.register(shared_store=check_inflight, thread_exit=retire_at_exit)


def tag_dest(op, cta, lanes, cols):
    """Tensor-memory cells ``op`` writes: a tcgen05.ld of them is checked against its completion."""
    cta.tmem.src[cells_at(lanes, cols)] = op.id


def watch_reads(op, cta, lo, hi):
    """Shared bytes [lo, hi) of ``cta`` that ``op`` reads: a store into them before it completes
    is a write-after-read race."""
    INFLIGHT.of(cta).add(lo, hi, op)


def record(M, rid):
    return KERNEL.of(M).records[rid]


def issue(t, rec):
    """Put ``rec`` (a cp or an MMA) on its issuing thread's pending list; the commits the thread
    issues from now on cover it."""
    st = THREAD.of(t)
    rec.first_commit = len(st.commits)
    st.pending.append(rec)


def completions(rec):
    """(mbarrier, phase index) of every commit arrive that covers ``rec``: each commit of its
    issuer and cta_group issued after it (PTX ISA tcgen05.commit), in issue order."""
    for cg, mb, n in THREAD.of(rec.issuer).commits[rec.first_commit:]:
        if cg == rec.cg:
            yield mb, n


def completed(rec) -> bool:
    if not rec.retired:
        return False
    return rec.forced or any(mb.completed > n for mb, n in completions(rec))


def retire_pending(M, t, cg):
    st = THREAD.of(t)
    keep, done = [], []
    for rec in st.pending:
        (done if cg is None or rec.cg == cg else keep).append(rec)
    st.pending = keep
    i = 0
    while i < len(done):
        rec, j = done[i], i + 1
        ch = rec.chain
        if ch is not None:  # MMAs onto the same D, in one call (tcgen05_chain.py)
            while j < len(done) and ch.joins(done[j].chain):
                j += 1
        for cta, lanes, cols, vals in (rec.writes if j == i + 1 else
                                       tcgen05_chain.run([r.chain for r in done[i:j]])):
            tm, ix = cta.tmem, cells_at(lanes, cols)
            tm.cells[ix] = vals
            tm.written[ix] = True
        for rec in done[i:j]:
            rec._writes, rec._compute, rec.chain = (), None, None  # a launch keeps every op,
            rec.chunks = []  # not its data
            rec.retired = True
            if cg is None:
                rec.forced = True
        i = j


def retire_at_exit(M, t):
    """Thread-exit hook (state.Hooks): cps the thread never committed are retired, with a warning."""
    st = THREAD.peek(t)
    if st is not None and st.pending:
        lines = sorted({rec.line for rec in st.pending})
        ops = "/".join(sorted({rec.opcode for rec in st.pending}))
        M.warn(f"thread {M.where(t)} exited with {ops} (line(s) {lines}) never "
               f"committed; retired at exit", key=("uncommitted", tuple(lines)))
        retire_pending(M, t, None)


def check_inflight(M, t, cta, off, n):
    """Shared-memory store observer (state.Hooks): a store into bytes that a cp not yet completed
    reads is a write-after-read race."""
    inflight = INFLIGHT.peek(cta)
    if not inflight or not inflight.covers(off, n):
        return
    end, stale = off + n, False
    for lo, hi, rec in inflight:
        if not (lo < end and off < hi):
            continue
        if completed(rec):
            stale = True  # (dropped below, with every completed cp: their granules freed)
            continue
        M.violation(f"write-after-read race: store to shared 0x{off:x} ({n} bytes) while the "
                    f"{rec.opcode} issued at line {rec.line} that reads [0x{lo:x}, 0x{hi:x}) has "
                    f"not completed (wait on its commit's mbarrier first)",
                    key=("war", rec.line), race=True)
    if stale:
        inflight.prune()


def check_proxy(M, t, cta, idx, spec, what="tcgen05.cp"):
    """Shared bytes ``idx`` of ``cta`` read in the async proxy by ``what`` (issued by ``t`` at
    ``spec.line``): each generic-proxy store of them needs a proxy fence on a causality path to
    the read (state.unfenced_writers)."""
    tags = cta.smem.wtag[idx]
    nz = tags[tags != 0]
    if not nz.size:
        return
    for tag, w in unfenced_writers(M, distinct(nz), t):
        pos = np.argwhere(tags == tag)[0]
        addr = int(idx[tuple(pos)])
        M.violation(
            f"{what} at line {spec.line} (async proxy) reads shared byte 0x{addr:x} of CTA "
            f"{cta.idx} written by a generic-proxy store of thread {M.where(w)} with no "
            f"fence.proxy.async between them: neither the writer fenced after the store nor "
            f"the issuing thread after synchronising with the writer (docs/tcgen05.md §10)",
            key=("proxy", spec.line, w.gid))


# ------------------------------------------------------------------------------- commit
def decode_commit(d, inst):
    p = inst.parts
    cg = cta_group(d, inst)
    if "mbarrier::arrive::one" not in p:
        raise d.error("tcgen05.commit needs .mbarrier::arrive::one")
    multicast = "multicast::cluster" in p
    ops = d.operands(1, 2)
    ae, sym = d.addr_expr(ops[0])
    space = "cluster" if "shared::cluster" in p else ("shared" if sym == "shared" else "generic")
    if multicast and len(ops) != 2:
        raise d.error(".multicast::cluster needs a 16-bit ctaMask operand")
    me = d.src(ops[1], 16) if multicast else "None"
    return d.compile([f"_commit(M, t, {cg}, {ae}, '{space}', {me}, {inst.line})"],
                     {"_commit": exec_commit})


def exec_commit(M, t, cg, a, space, cmask, line):
    check_cta_group(M, cg, line)
    space = findings.generic_as_shared(M, t, a, space, "tcgen05.commit", line)
    if cmask is None:
        targets = [mbar.get(M, t, a, space, "tcgen05.commit")]
    else:
        _, off = mbar.locate(M, t, a, space, "tcgen05.commit")
        ctas = t.cta.cluster.ctas
        targets = []
        for k in range(16):
            if (cmask >> k) & 1:
                if k >= len(ctas):
                    raise EmulationError(f"tcgen05.commit ctaMask 0x{cmask:04x} names CTA rank "
                                         f"{k}, but the cluster has {len(ctas)} CTA(s)")
                mb = ctas[k].smem.mbarriers.get(off)
                if mb is None:
                    raise EmulationError(f"tcgen05.commit: use of an uninitialised mbarrier at "
                                         f"shared 0x{off:x} of CTA {ctas[k].idx}")
                targets.append(mb)
    retire_pending(M, t, cg)
    THREAD.of(t).commits.extend((cg, mb, mb.completed) for mb in targets)

    def land():  # the arrive-on of the commit (in flight under a policy)
        for mb in targets:
            mbar.arrive(M, t, mb, 1)
    M.complete_async(land, "tcgen05.commit", line, t)



def check_tmem_read(M, w, parts, Rr, Cc, line):
    tm = w.cta.tmem
    ids = np.unique(tm.src[Rr, Cc])
    for rid in ids:
        if rid == 0:
            continue
        rec = KERNEL.of(M).records[int(rid)]
        if not rec.retired:
            M.violation(f"tcgen05.ld reads TMEM being written by the {rec.opcode} at line "
                        f"{rec.line}, which has not been committed and waited for (needs "
                        f"tcgen05.commit -> mbarrier wait -> tcgen05.fence::after_thread_sync)",
                        key=("ldrace", line, rec.line), race=True)
            continue
        if rec.forced:
            continue
        for t in parts:
            synced = THREAD.of(t).synced
            if not any(synced.get(mb.uid, -1) > n for mb, n in completions(rec)):
                findings.report(  # the rule NVIDIA's CuTe DSL kernels break (findings.py)
                    M, "tcgen05.fence::after_thread_sync",
                    f"tcgen05.ld by lane {t.lane} reads TMEM written by the {rec.opcode} at line "
                    f"{rec.line} without a successful mbarrier wait on its commit's phase followed "
                    f"by tcgen05.fence::after_thread_sync in this thread (docs/tcgen05.md §10)",
                    line=line)
                break



def decode_unsupported(d, inst):
    raise d.error(f"`{inst.opcode}` is not emulated by tile-sim (tcgen05.shift semantics are out "
                  "of scope; refusing to guess)")
