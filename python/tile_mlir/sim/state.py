"""The emulated machine's state, at the bottom of tile-sim: threads, warps, CTAs, clusters, the
decoded instruction, the states of a thread, the state each handler family keeps, and the hooks
through which families see what other instructions do.

Nothing here knows an instruction.  A handler family (``handlers/<family>.py``) declares the state
it keeps with :class:`Kept` (per thread, CTA, cluster or machine, made on first use) and, while its
instructions are decoded, registers with :class:`Hooks` what it must be told: a thread's exit, a
CTA's end, or threads' loads and stores of shared memory (race checks).  So a new instruction is
one handler and one row of the opcodes TABLE; the scheduler (machine.py) and the other families
stay as they are.
"""

from __future__ import annotations

import numpy as np

from .errors import EmulationError
from .memory import SharedMemory, TensorMemory


class State:
    """What a thread is doing; the scheduler runs the threads in RUN (plain ints: its inner loop
    compares them)."""
    RUN = 0
    EXITED = 1
    BAR = 2  # blocked in bar.sync / barrier.sync
    MBAR = 3  # parked in an mbarrier wait, on ``wait_on``
    COLL = 4  # parked at a warp-collective instruction until the lanes it needs arrive
    CLUSTER = 5  # blocked in barrier.cluster.wait
    ALLOC = 6  # blocked in tcgen05.alloc until another warp deallocates, or in a CTA pair's
    # collective alloc / dealloc until the peer's warp comes


#: states a thread enters by an instruction that retired: its pc is already past that instruction
#: (the others keep the pc at the instruction that blocks, to run it again)
BLOCKED_AFTER = frozenset({State.BAR, State.CLUSTER})

STATE_NAMES = {State.RUN: "runnable", State.EXITED: "exited", State.BAR: "blocked in bar.sync",
               State.MBAR: "waiting in mbarrier wait",
               State.COLL: "parked at a warp-collective instruction",
               State.CLUSTER: "blocked in barrier.cluster.wait",
               State.ALLOC: "blocked in tcgen05.alloc / dealloc"}


class Thread:
    """One thread.  Besides registers (``r``, slots from the decoder), program counter and state:

    * ``wait_on`` (the mbarrier a parked thread waits on), ``timeout_at`` / ``timeout``: the
      scheduler releases a parked waiter once per progress value with result false (machine.py);
    * ``seen``: happens-before knowledge (key -> count) that barriers and mbarriers carry between
      threads (handlers/sync.py);
    * ``fence_count``: the thread's proxy epoch, tagged on its shared stores: advanced by each
      fence.proxy.async (``fenced_at``: the epoch it began) and each barrier that publishes the
      thread's earlier stores; ``epochs``: the epoch of each thread whose earlier stores it has
      synchronised with through barriers (one dict shared by a barrier's participants, never
      changed in place); ``proxy_known``: ``epochs`` at its last fence.proxy.async
      (:func:`unfenced_writers`);
    * ``ext``: the state handler families keep for the thread (:class:`Kept`).
    """
    __slots__ = ("r", "pc", "state", "lin", "lane", "warp", "cta", "gid", "local", "wait_on",
                 "timeout_at", "timeout", "seen", "fence_count", "fenced_at", "epochs", "proxy_known", "ext")

    def __init__(self, nslots, lin, warp, cta, gid):
        self.r = [0] * nslots
        self.pc = 0
        self.state = State.RUN
        self.lin = lin
        self.lane = lin % 32
        self.warp = warp
        self.cta = cta
        self.gid = gid
        self.local = None
        self.wait_on = None
        self.timeout_at = -1
        self.timeout = False
        self.seen = {}
        self.fence_count = 0
        self.fenced_at = 0
        self.epochs = _NO_EPOCHS
        self.proxy_known = None
        self.ext = {}


class Warp:
    __slots__ = ("threads", "cta", "idx", "rank", "lanes")

    def __init__(self, cta, idx):
        self.cta = cta
        self.idx = idx
        self.rank = idx % 4  # rank in its warpgroup: the TMEM lane quarter it may access
        self.threads = []
        self.lanes = frozenset()


class CTA:
    def __init__(self, idx, ctaid, rank, cluster, smem_size):
        self.idx = idx
        self.ctaid = ctaid
        self.rank = rank
        self.cluster = cluster
        self.smem = SharedMemory(smem_size)
        self._tmem = None
        self.warps: list[Warp] = []
        self.threads: list[Thread] = []
        self.live = 0
        self.ext = {}

    @property
    def tmem(self) -> TensorMemory:
        """The CTA's tensor memory, made when first used (most kernels never touch it)."""
        if self._tmem is None:
            self._tmem = TensorMemory()
        return self._tmem

    def tmem_snapshot(self):
        return self._tmem.snapshot if self._tmem is not None else TensorMemory.UNUSED


class Cluster:
    def __init__(self, idx):
        self.idx = idx
        self.ctas: list[CTA] = []
        self.ext = {}


class DInst:
    """A decoded instruction: ``fn(thread)``, or with ``warp`` set ``fn(warp, lanes)`` once the
    lanes ``req(warp, lanes_at_pc)`` names are all at it (opcodes.py)."""
    __slots__ = ("line", "text", "fn", "guard", "warp", "req", "mnemonic", "src", "loc")

    def __init__(self, inst, mnemonic, loc=None):
        self.line = inst.line
        self.text = inst.text
        self.mnemonic = mnemonic
        self.fn = None
        self.guard = None
        self.warp = False
        self.req = None
        self.src = inst
        self.loc = loc  # "path:line:col" of its .loc (locations.py), or None


# ------------------------------------------------------------------------------- family state
SCOPES = ("thread", "cta", "cluster", "machine")
KEPT: dict[str, Kept] = {}  # "<family>/<scope>" -> its declaration


class Kept:
    """State a handler family keeps for each owner of ``scope`` (a Thread, CTA, Cluster or the
    Machine): ``make(owner)`` builds it the first time :meth:`of` asks, into ``owner.ext``.  One
    declaration per family and scope, named ``"<family>/<scope>"``."""
    __slots__ = ("name", "scope", "make")

    def __init__(self, family: str, scope: str, make):
        if scope not in SCOPES:
            raise ValueError(f"state scope {scope!r} is not one of {SCOPES}")
        name = f"{family}/{scope}"
        if name in KEPT:
            raise ValueError(f"state {name} is declared twice")
        self.name, self.scope, self.make = name, scope, make
        KEPT[name] = self

    def of(self, owner):
        s = owner.ext.get(self)
        if s is None:
            s = owner.ext[self] = self.make(owner)
        return s

    def peek(self, owner):
        """The owner's state, or None if nothing made it yet."""
        return owner.ext.get(self)


class Hooks:
    """What handler families ask to be told, registered while their instructions are decoded (each
    function once; called in the order registered):

    * ``thread_exit``: ``f(M, t)`` after thread ``t`` executed ret / exit;
    * ``cta_done``: ``f(M, cta)`` once every thread of the CTA's cluster has exited;
    * ``shared_load`` / ``shared_store``: ``f(M, t, cta, off, n, what)`` / ``f(M, t, cta, off, n)``
      before thread ``t`` reads or writes bytes [off, off + n) of ``cta``'s shared memory
      (:func:`shared_read`, :func:`shared_observe_load`, :func:`shared_write`; ``what`` names the
      reader in messages).
    """
    __slots__ = ("thread_exit", "cta_done", "shared_load", "shared_store")

    def __init__(self):
        self.thread_exit: list = []
        self.cta_done: list = []
        self.shared_load: list = []
        self.shared_store: list = []

    def register(self, **fns):
        for event, fn in fns.items():
            registered = getattr(self, event)
            if fn not in registered:
                registered.append(fn)


# ------------------------------------------------------------------------------- shared memory
def shared_read(M, t, cta, off, n):
    """A load of thread ``t``: ``n`` bytes of ``cta``'s shared memory (little-endian), shown first
    to the load observers."""
    if M.hooks.shared_load:
        shared_observe_load(M, t, cta, off, n, "load")
    return cta.smem.read(off, n)


def shared_observe_load(M, t, cta, off, n, what):
    """Show the load observers a read of shared bytes (by a reader that takes the bytes itself, as
    tcgen05.cp does with numpy)."""
    for f in M.hooks.shared_load:
        f(M, t, cta, off, n, what)


def shared_observe_chunks(M, t, cta, chunks, what, unique=False):
    """Show the load observers a read of the 16-byte chunks at byte offsets ``chunks`` (a numpy
    array, as an MMA operand or a tcgen05.cp reads them; ``unique``: already sorted without
    repeats): once per contiguous run of chunks, not once per chunk; an observer with a
    ``gather`` attribute takes the chunk array itself."""
    if not M.hooks.shared_load or not len(chunks):
        return
    c = chunks if unique else np.unique(chunks)
    runs = None
    for f in M.hooks.shared_load:
        g = getattr(f, "gather", None)
        if g is not None:
            g(M, t, cta, c, what)
            continue
        if runs is None:
            breaks = np.flatnonzero(np.diff(c) != 16) + 1
            runs = list(zip(np.concatenate(([0], breaks)).tolist(),
                            np.concatenate((breaks, [len(c)])).tolist()))
        for s0, e0 in runs:
            lo = int(c[s0])
            f(M, t, cta, lo, int(c[e0 - 1]) + 16 - lo, what)


def shared_write(M, t, cta, off, n, val):
    """A generic-proxy store of thread ``t``: bounds and live mbarrier objects checked, the store
    observers told, then the bytes written and tagged with the writer and its fence.proxy.async
    count (so an async-proxy reader can tell whether the writer fenced)."""
    sm = cta.smem
    if off < 0 or off + n > sm.size:
        sm.check(off, n)
    if sm.mbarriers and any(sm.mbar_mask[off:off + n]):
        mb = next(m for o, m in sm.mbarriers.items() if o < off + n and off < o + 8)
        raise EmulationError(f"store to shared 0x{off:x} ({n} bytes) overwrites a live "
                             f"{mb.describe()} (initialised at line {mb.init_line}; use "
                             f"mbarrier.inval first)")
    for f in M.hooks.shared_store:
        f(M, t, cta, off, n)
    sm.buf[off:off + n] = (val & ((1 << (8 * n)) - 1)).to_bytes(n, "little")
    sm.wtag[off:off + n] = ((t.gid + 1) << 32) | t.fence_count
    M.progress += 1


# ------------------------------------------------------------------------------- proxy fences
_NO_EPOCHS: dict = {}


def proxy_fence(t):
    """fence.proxy.async by ``t``: its stores so far are ordered before its later async-proxy
    operations, and so are the stores of every thread it has synchronised with since they were
    made (the fence lies on the causality path from them to ``t``'s async operation)."""
    t.fence_count += 1
    t.fenced_at = t.fence_count
    t.proxy_known = t.epochs


def publish_epochs(threads, to=None):
    """A barrier completes: it carries each participant's stores so far to the others (later
    stores get a newer epoch, which this knowledge does not cover), with what each knew; ``to``:
    the participants that learn it (those that wait on the barrier; default every one).  They
    share one new dict (in the common case they shared one before: merged once)."""
    merged, done = {}, set()
    for t in threads:
        e = t.epochs
        if id(e) not in done:
            done.add(id(e))
            for k, v in e.items():
                if merged.get(k, -1) < v:
                    merged[k] = v
    for t in threads:
        t.fence_count += 1
        merged[t.gid] = t.fence_count
    for t in threads if to is None else to:
        t.epochs = merged


def unfenced_writers(M, tags, reader) -> list:
    """(tag, thread) for each of the distinct nonzero write tags ``tags`` (a numpy array) whose
    generic-proxy store has no proxy fence on a causality path to an async-proxy access by
    ``reader`` (PTX ISA, memory consistency model: proxy-preserved base causality order): neither
    the writer fenced after the store, nor did ``reader`` fence after synchronising with the
    writer past the store. (A tag is the writer's gid + 1 above its store's epoch.)"""
    by_gid = M.thread_by_gid
    known = reader.proxy_known if reader is not None else None
    out = []
    for tag, gid, epoch in zip(tags.tolist(), ((tags >> 32) - 1).tolist(), (tags & 0xFFFFFFFF).tolist()):
        w = by_gid(gid)
        if w.fenced_at > epoch or (known is not None and known.get(gid, -1) > epoch):
            continue
        out.append((tag, w))
    return out
