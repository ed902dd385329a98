"""The emulated machine's state, at the bottom of tile-sim: threads, warps, CTAs, clusters, the
decoded instruction and the states of a thread.
"""

from __future__ import annotations

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
    ALLOC = 6  # blocked in tcgen05.alloc until another warp deallocates


STATE_NAMES = {State.RUN: "runnable", State.EXITED: "exited", State.BAR: "blocked in bar.sync",
               State.MBAR: "waiting in mbarrier wait",
               State.COLL: "parked at a warp-collective instruction",
               State.CLUSTER: "blocked in barrier.cluster.wait",
               State.ALLOC: "blocked in tcgen05.alloc"}


class Thread:
    __slots__ = ("r", "pc", "state", "lane", "warp", "cta", "lin", "gid", "fence_count", "seen",
                 "synced", "pending_cp", "ld_pending", "st_pending", "wait_on", "timeout_at",
                 "timeout", "cl_arrived", "local", "bar_gen")

    def __init__(self, nslots):
        self.r = [0] * nslots
        self.pc = 0
        self.state = State.RUN
        self.fence_count = 0
        self.seen = {}
        self.synced = {}
        self.pending_cp = []
        self.ld_pending = False
        self.st_pending = False
        self.wait_on = None
        self.timeout_at = -1
        self.timeout = False
        self.cl_arrived = -1
        self.local = None
        self.bar_gen = 0


class Warp:
    __slots__ = ("threads", "cta", "idx", "rank", "lanes", "gidx")

    def __init__(self, cta, idx):
        self.cta = cta
        self.idx = idx
        self.rank = idx % 4
        self.threads = []
        self.lanes = frozenset()


class CTA:
    def __init__(self, idx, ctaid, rank, cluster, smem_size):
        self.idx = idx
        self.ctaid = ctaid
        self.rank = rank
        self.cluster = cluster
        self.smem = SharedMemory(smem_size)
        self.tmem = TensorMemory()
        self.warps: list[Warp] = []
        self.threads: list[Thread] = []
        self.live = 0
        self.bars: dict = {}  # barrier id -> [arrived threads, expected or None]


class Cluster:
    def __init__(self, idx):
        self.idx = idx
        self.ctas: list[CTA] = []
        self.arrived = 0
        self.gen = 0
        self.waiters: list = []


class DInst:
    """A decoded instruction."""
    __slots__ = ("line", "text", "fn", "guard", "warp", "req", "mnemonic", "src")

    def __init__(self, inst, mnemonic):
        self.line = inst.line
        self.text = inst.text
        self.mnemonic = mnemonic
        self.fn = None
        self.guard = None
        self.warp = False
        self.req = None
        self.src = inst
