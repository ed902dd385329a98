"""Memory state of the emulated machine: global allocations, per-CTA shared memory (with the
mbarrier objects living in it and the generic-proxy writer of each byte), per-CTA tensor memory
(TMEM).  Threads' observed shared-memory accesses are state.shared_read / shared_write.

Address conventions (documented choices of the emulator):

* ``.shared::cta`` addresses are byte offsets starting at 0.  Static ``.shared`` variables are laid
  out from 0 in declaration order, each aligned to its ``.align``; dynamic shared memory
  (``.extern .shared ... x[]``) starts after them, aligned to 1024 bytes (the hardware/driver
  guarantee is at least 16 B; 1024 keeps 128B-swizzled buffers aligned).  On hardware the window
  may start at a reserved offset that is itself 1024-aligned, so absolute swizzle phases agree.
* ``.shared::cluster`` addresses: ``rank << 24 | offset`` names CTA ``rank`` of the cluster (what
  ``mapa`` returns).  The PTX ISA puts each CTA's ``.shared::cta`` window inside the
  ``.shared::cluster`` window (its own addresses are valid ``.shared::cluster`` addresses naming
  it, and ``getctarank`` of one gives its rank), so a CTA's ``.shared::cta`` addresses (symbols,
  ``cvta.to.shared``) are its ``.shared::cluster`` ones, ``rank << 24 | offset``: CUTLASS's 2-CTA
  kernels name the even CTA's mbarrier by clearing bit 24 of their own address (Table A, A41).
  Rank 0, and every CTA of a launch without clusters, has offsets from 0.  A ``.shared::cta``
  access takes the offset bits; its rank bits must be the CTA's own or zero (``own_offset``).
* generic addresses: shared window at ``SHARED_WINDOW`` (+ the ``.shared::cluster`` address), local
  window at ``LOCAL_WINDOW``, kernel parameters at ``PARAM_WINDOW`` (``cvta.param``); everything
  else is global memory (allocations from ``GLOBAL_BASE``).
"""

from __future__ import annotations

import bisect

import numpy as np

from .errors import EmulationError

SHARED_WINDOW = 0x0000_1000_0000_0000
SHARED_WINDOW_SIZE = 1 << 32
LOCAL_WINDOW = 0x0000_2000_0000_0000
LOCAL_WINDOW_SIZE = 1 << 24
#: generic addresses of the kernel's .param space (cvta.param; tensor maps are found by them)
PARAM_WINDOW = 0x0000_3000_0000_0000
PARAM_WINDOW_SIZE = 1 << 16
GLOBAL_BASE = 0x0000_7F00_0000_0000
CLUSTER_SHIFT = 24
OFFSET_MASK = (1 << CLUSTER_SHIFT) - 1
DYN_SMEM_ALIGN = 1024
POISON = 0xDEADBEEF
TMEM_LANES = 128
TMEM_COLS = 512
#: host bytes per byte of shared memory: the byte, its writer tag (int64) and its mbarrier mark
SMEM_BYTES_PER_BYTE = 10
#: host bytes of one CTA's tensor memory: cells, snapshot and cp record ids (4 bytes each per
#: cell), the written flags (1 byte)
TMEM_BYTES = TMEM_LANES * TMEM_COLS * 13


def own_offset(cta, addr: int) -> int:
    """The offset in ``cta``'s shared memory of the ``.shared::cta`` address ``addr``."""
    hi = addr >> CLUSTER_SHIFT
    if hi == 0 or hi == cta.rank or addr < 0:  # a negative offset faults at the bounds check
        return addr & OFFSET_MASK if addr >= 0 else addr
    raise EmulationError(f".shared::cta address 0x{addr:x} is in CTA rank {hi}'s window, not the "
                         f"issuing CTA's (rank {cta.rank}): use a .shared::cluster access")


def resolve_shared(cta, addr: int, space: str):
    """A shared address of an instruction of ``cta`` -> (cta, offset); space: 'shared' (the
    .shared::cta window), 'cluster' or 'generic'."""
    if space == "generic":
        if not (SHARED_WINDOW <= addr < SHARED_WINDOW + SHARED_WINDOW_SIZE):
            raise EmulationError(f"generic address 0x{addr:x} is not in the shared window")
        addr -= SHARED_WINDOW
    elif space == "shared":
        return cta, own_offset(cta, addr)
    rank = addr >> CLUSTER_SHIFT
    if rank == cta.rank:
        return cta, addr & OFFSET_MASK
    ctas = cta.cluster.ctas
    if not 0 <= rank < len(ctas):
        raise EmulationError(f".shared::cluster address 0x{addr:x} names CTA rank {rank}, "
                             f"but the cluster has {len(ctas)} CTA(s)")
    return ctas[rank], addr & OFFSET_MASK


class Allocation:
    __slots__ = ("base", "size", "buf", "name")

    def __init__(self, base, size, buf, name):
        self.base, self.size, self.buf, self.name = base, size, buf, name


class GlobalMemory:
    def __init__(self):
        self.allocs: list[Allocation] = []
        self.bases: list[int] = []
        self.next = GLOBAL_BASE

    def alloc(self, size: int, name: str, data: bytes | None = None, align: int = 256) -> int:
        base = (self.next + align - 1) // align * align
        buf = bytearray(data) if data is not None else bytearray(size)
        if len(buf) != size:
            buf.extend(bytes(size - len(buf)))
        a = Allocation(base, size, buf, name)
        self.allocs.append(a)
        self.bases.append(base)
        self.next = base + max(size, 1) + 4096  # guard gap between allocations
        return base

    def find(self, addr: int, n: int) -> tuple[bytearray, int]:
        i = bisect.bisect_right(self.bases, addr) - 1
        if i >= 0:
            a = self.allocs[i]
            if addr + n <= a.base + a.size:
                return a.buf, addr - a.base
        raise EmulationError(self._oob(addr, n, i))

    def name_at(self, addr: int) -> str:
        """The name of the allocation holding ``addr`` ("" if none)."""
        i = bisect.bisect_right(self.bases, addr) - 1
        if i >= 0 and addr < self.allocs[i].base + self.allocs[i].size:
            return self.allocs[i].name
        return ""

    def _oob(self, addr, n, i):
        near = []
        for j in (i, i + 1):
            if 0 <= j < len(self.allocs):
                a = self.allocs[j]
                near.append(f"{a.name} [0x{a.base:x}, 0x{a.base + a.size:x}) size {a.size}")
        what = "; nearest allocation(s): " + ", ".join(near) if near else "; no allocations"
        return f"out-of-bounds global access of {n} bytes at 0x{addr:x}{what}"

    def read(self, addr: int, n: int) -> int:
        buf, off = self.find(addr, n)
        return int.from_bytes(buf[off:off + n], "little")

    def write(self, addr: int, n: int, val: int):
        buf, off = self.find(addr, n)
        buf[off:off + n] = (val & ((1 << (8 * n)) - 1)).to_bytes(n, "little")


class MBarrier:
    """mbarrier state {phase, pending, expected, tx} (PTX ISA "mbarrier" contents and phases)."""
    __slots__ = ("uid", "off", "expected", "pending", "tx", "completed", "carry", "waiters",
                 "init_line", "cta", "tx_expected", "tx_arrived")
    _next_uid = 0

    def __init__(self, cta, off, count, line):
        MBarrier._next_uid += 1
        self.uid = MBarrier._next_uid
        self.cta = cta
        self.off = off
        self.expected = count
        self.pending = count
        self.tx = 0
        # the current phase's expect-tx and complete-tx sums (tx == expected - arrived): what a
        # deadlock message says, where the tx-count alone reads `tx -8192`
        self.tx_expected = self.tx_arrived = 0
        self.completed = 0  # number of completed phases; current phase parity = completed & 1
        self.carry: dict = {}  # happens-before knowledge carried by arrivals (handlers/sync.py)
        self.waiters: list = []
        self.init_line = line

    def describe(self):
        tx = f"tx {self.tx}"
        if self.tx_expected or self.tx_arrived:
            tx = (f"{self.tx_expected} transaction bytes expected, {self.tx_arrived} arrived "
                  f"(tx-count {self.tx})")
        return (f"mbarrier at shared 0x{self.off:x} of CTA {self.cta.idx} (phase {self.completed}, "
                f"pending {self.pending}/{self.expected}, {tx})")


class SharedMemory:
    def __init__(self, size: int):
        self.size = size
        self.buf = bytearray(size)
        self.np = np.frombuffer(self.buf, dtype=np.uint8) if size else np.zeros(0, np.uint8)
        # generic-proxy write tags per byte: (writer gid + 1) << 32 | writer's fence count
        self.wtag = np.zeros(size, dtype=np.int64)
        self.mbar_mask = bytearray(size)  # 1 where a live mbarrier object lives
        self.mbarriers: dict[int, MBarrier] = {}

    def check(self, off: int, n: int, what="shared"):
        if off < 0 or off + n > self.size:
            raise EmulationError(f"out-of-bounds {what} access of {n} bytes at shared offset "
                                 f"0x{off:x}; the CTA's shared memory is [0x0, 0x{self.size:x}) "
                                 f"({self.size} bytes)")

    def read(self, off: int, n: int) -> int:
        if off < 0 or off + n > self.size:
            self.check(off, n)
        return int.from_bytes(self.buf[off:off + n], "little")


def cells_at(lanes: np.ndarray, cols: np.ndarray):
    """The index of tensor-memory cells (lanes[i, j], cols[i, j]): two slices when they form a
    rectangle of consecutive lanes and columns given as broadcast rows and columns (an MMA's D:
    a slice assignment instead of a scatter of every cell), else the arrays themselves."""
    if lanes.ndim == 2 and lanes.shape == cols.shape and lanes.size and lanes.strides[1] == 0 \
            and cols.strides[0] == 0:
        ln, cl = lanes[:, 0], cols[0]
        if _consecutive(ln) and _consecutive(cl):
            return slice(int(ln[0]), int(ln[0]) + ln.size), slice(int(cl[0]), int(cl[0]) + cl.size)
    return lanes, cols


def _consecutive(v: np.ndarray) -> bool:
    return int(v[-1]) - int(v[0]) == v.size - 1 and bool((np.diff(v) == 1).all())


class TensorMemory:
    """128 lanes x 512 columns x 32-bit cells, with column allocation state.  ``UNUSED`` is the
    snapshot of every CTA that never touched its tensor memory (read-only, shared)."""
    UNUSED = np.full((TMEM_LANES, TMEM_COLS), POISON, dtype=np.uint32)
    UNUSED.flags.writeable = False

    def __init__(self):
        self.cells = np.full((TMEM_LANES, TMEM_COLS), POISON, dtype=np.uint32)
        self.written = np.zeros((TMEM_LANES, TMEM_COLS), dtype=bool)
        self.src = np.zeros((TMEM_LANES, TMEM_COLS), dtype=np.int32)  # cp record id, 0 = none
        self.owner = np.full(TMEM_COLS, -1, dtype=np.int32)
        self.allocs: dict[int, tuple] = {}  # start column -> (ncols, line)
        self.snapshot = self.cells.copy()
        self.relinquished = False
        self.last_ncols = None

    def first_fit(self, ncols: int):
        for start in range(0, TMEM_COLS, ncols):
            if (self.owner[start:start + ncols] < 0).all():
                return start
        return None

    def check_cols(self, c0: int, c1: int) -> str | None:
        if c0 < 0 or c1 > TMEM_COLS:
            return f"columns [{c0}, {c1}) are outside TMEM's 512 columns"
        free = np.nonzero(self.owner[c0:c1] < 0)[0]
        if len(free):
            ranges = ", ".join(f"[{s}, {s + n})" for s, (n, _) in sorted(self.allocs.items()))
            return (f"column {c0 + int(free[0])} is not allocated (allocated ranges: "
                    f"{ranges or 'none'})")
        return None
