"""tcgen05.{alloc, dealloc, relinquish_alloc_permit}: column allocations of a CTA's tensor memory
(PTX ISA §9.7.16.7; docs/tcgen05.md §1; placement and poison are docs/emulator.md A12)."""

from __future__ import annotations

from .. import memory as mem
from ..errors import EmulationError
from ..state import Kept, State
from . import tcgen05_async as aop


def decode_alloc(d, inst):
    cg = aop.cta_group(d, inst)
    dst, ncols = d.operands(2)
    ae, sym = d.addr_expr(dst)
    space = "shared" if ("shared::cta" in inst.parts or "shared" in inst.parts or sym == "shared") \
        else "generic"
    fa = d.compile([f"return {ae}"])
    fn_ = d.compile([f"return {d.src(ncols, 32)}"])
    M = d.M
    M.hooks.register(cta_done=check_tmem_freed)
    line = inst.line

    def f(w, parts):
        aop.check_cta_group(M, cg, line)
        a = aop.uniform(parts, fa, "tcgen05.alloc destination address")
        n = aop.uniform(parts, fn_, "tcgen05.alloc nCols")
        c = w.cta
        if n < 32 or n > 512 or n & (n - 1):
            raise EmulationError(f"tcgen05.alloc nCols={n}: must be a power of 2 in [32, 512]")
        dc, off = M.shared_target(parts[0], a, space)
        if dc is not c:
            raise EmulationError("tcgen05.alloc destination must be in the issuing CTA's shared "
                                 "memory")
        if off % 4:
            raise EmulationError(f"tcgen05.alloc destination 0x{off:x} is not 4-byte aligned")
        dc.smem.check(off, 4, "tcgen05.alloc destination")
        if cg == 2:  # with the peer's warp, in both CTAs at once
            collective(M, w, parts, "alloc", (n, off),
                       lambda cta, args: _allocate(M, cta, *args, line, pair=True))
        elif not _allocate(M, c, n, off, line):  # may block until another warp deallocates
            for t in parts:
                t.pc -= 1
                t.state = State.ALLOC
    return f, None


def _allocate(M, c, n, off, line, pair=False) -> bool:
    """Allocate ``n`` columns of ``c``'s tensor memory and write their address to its shared
    ``off``; False when they do not fit yet (another warp's dealloc may make room)."""
    tm = c.tmem
    if tm.relinquished:
        raise EmulationError("tcgen05.alloc after tcgen05.relinquish_alloc_permit in this CTA")
    start = tm.first_fit(n)
    if start is None:
        if tm.allocs and not pair:
            return False
        raise EmulationError(f"tcgen05.alloc of {n} columns cannot be satisfied in CTA {c.idx}"
                             + (" (a CTA pair's collective alloc that must wait for room is not "
                                "modelled)" if tm.allocs else ""))
    if tm.last_ncols is not None and n > tm.last_ncols:
        M.warn(f"line {line}: tcgen05.alloc column count increased from {tm.last_ncols} to "
               f"{n} within CTA {c.idx} (PTX: must not increase between allocations)",
               key=("allocinc", line))
    tm.last_ncols = n
    tm.allocs[start] = (n, line)
    tm.owner[start:start + n] = start
    tm.cells[:, start:start + n] = mem.POISON
    tm.written[:, start:start + n] = False
    tm.src[:, start:start + n] = 0
    c.smem.buf[off:off + 4] = start.to_bytes(4, "little")  # lane 0, first column
    M.progress += 1
    return True


class _PairOps:
    """A CTA pair's collective tcgen05.alloc / dealloc (``.cta_group::2``: "one warp from each of
    the peer CTAs must collectively perform" it, PTX ISA): ``waiting``: (op, rank) -> (operands,
    threads) of a warp that came first; ``done``: (op, rank) the peer's warp performed for it."""
    __slots__ = ("waiting", "done")

    def __init__(self, cluster):
        self.waiting = {}
        self.done = set()


PAIR = Kept("tcgen05_alloc", "cluster", _PairOps)


def collective(M, w, parts, op, args, perform):
    """The warp of the CTA pair that comes first waits (blocked in tcgen05.alloc, to execute the
    instruction again) until the peer's warp comes; that one performs the operation for both
    CTAs (``perform(cta, args)``, each with its own operands) and lets the first go on."""
    c = w.cta
    aop.cta_pair(M, parts[0], 2)  # (a peer exists)
    st = PAIR.of(c.cluster)
    me, peer = (op, c.rank), (op, c.rank ^ 1)
    if me in st.done:  # performed by the peer while this warp waited
        st.done.discard(me)
        return
    other = st.waiting.pop(peer, None)
    if other is None:
        st.waiting[me] = (args, parts)
        for t in parts:
            t.pc -= 1
            t.state = State.ALLOC
        return
    peer_args, peer_threads = other
    perform(c.cluster.ctas[c.rank ^ 1], peer_args)
    perform(c, args)
    st.done.add(peer)
    for t in peer_threads:
        if t.state == State.ALLOC:
            t.state = State.RUN


def decode_dealloc(d, inst):
    cg = aop.cta_group(d, inst)
    taddr, ncols = d.operands(2)
    fa = d.compile([f"return {d.src(taddr, 32)}"])
    fn_ = d.compile([f"return {d.src(ncols, 32)}"])
    M = d.M
    line = inst.line

    def f(w, parts):
        aop.check_cta_group(M, cg, line)
        a = aop.uniform(parts, fa, "tcgen05.dealloc taddr")
        n = aop.uniform(parts, fn_, "tcgen05.dealloc nCols")
        lane, col = a >> 16, a & 0xFFFF
        if lane:
            raise EmulationError(f"tcgen05.dealloc taddr 0x{a:08x} has lane field {lane} "
                                 f"(must be the address returned by tcgen05.alloc)")
        if cg == 2:  # "may block until the peer warp also deallocates": with it, in both CTAs
            collective(M, w, parts, "dealloc", (col, n),
                       lambda cta, args: _deallocate(M, cta, *args, line))
        else:
            _deallocate(M, w.cta, col, n, line)
    return f, None


def _deallocate(M, c, col, n, line):
    tm = c.tmem
    if col not in tm.allocs:
        if 0 <= col < mem.TMEM_COLS and tm.owner[col] >= 0:
            raise EmulationError(f"tcgen05.dealloc of column {col}, which is inside the "
                                 f"allocation starting at column {int(tm.owner[col])}, not "
                                 f"its start")
        raise EmulationError(f"tcgen05.dealloc of column {col}: no live allocation starts "
                             f"there (unallocated TMEM or double free)")
    an, aline = tm.allocs[col]
    if an != n:
        raise EmulationError(f"tcgen05.dealloc nCols={n} differs from the {an} columns "
                             f"allocated at line {aline}")
    for t in c.threads:
        st = aop.THREAD.peek(t)
        for rec in st.pending if st is not None else ():
            for cta, lanes, cols, _ in rec.writes:
                if cta is c and ((cols >= col) & (cols < col + n)).any():
                    raise EmulationError(f"tcgen05.dealloc of columns [{col}, {col + n}) "
                                         f"while the {rec.opcode} at line {rec.line} writing "
                                         f"them is not committed")
    if any(st.ld_pending for t in c.threads
           if t.state != State.EXITED and (st := aop.THREAD.peek(t)) is not None):
        M.warn(f"line {line}: tcgen05.dealloc while a tcgen05.ld of CTA {c.idx} has not "
               f"been waited for with tcgen05.wait::ld", key=("ldpend", line))
    tm.snapshot[:, col:col + n] = tm.cells[:, col:col + n]
    del tm.allocs[col]
    tm.owner[col:col + n] = -1
    M.progress += 1
    waiting = {id(t) for _, ts in PAIR.of(c.cluster).waiting.values() for t in ts}
    for t in c.threads:  # wake warps blocked in a tcgen05.alloc for room (not those of a pair)
        if t.state == State.ALLOC and id(t) not in waiting:
            t.state = State.RUN


def check_tmem_freed(M, c):
    """CTA-done hook (state.Hooks): TMEM still allocated when the kernel exits is a violation; the
    snapshot keeps those columns' final contents."""
    tm = c.tmem
    if tm.allocs:
        ranges = ", ".join(f"[{s}, {s + n}) allocated at line {ln}"
                           for s, (n, ln) in sorted(tm.allocs.items()))
        msg = (f"kernel exit with TMEM still allocated in CTA {c.idx}: columns {ranges} "
               f"(every tcgen05.alloc needs a tcgen05.dealloc before exit)")
        for s, (n, _) in tm.allocs.items():
            tm.snapshot[:, s:s + n] = tm.cells[:, s:s + n]
        M.violation(msg)


def decode_relinquish(d, inst):
    cg = aop.cta_group(d, inst)
    M = d.M
    line = inst.line

    def f(w, parts):
        aop.check_cta_group(M, cg, line)
        w.cta.tmem.relinquished = True
    return f, None

