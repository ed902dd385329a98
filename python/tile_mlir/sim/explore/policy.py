"""Schedule policies: what tile-sim's scheduler consults, under exploration, for which warp runs
next and when an asynchronous completion is delivered (docs/emulator.md, schedule exploration).

A policy's schedule is a :class:`Schedule`: a priority per warp of a cluster, change points and
delays.  The scheduler (sim/scheduler.py) ends a warp's slice right after each synchronisation
operation (:data:`SYNC_MNEMONICS`), then the policy runs the runnable warp of highest priority
(PCT, Burckhardt et al., ASPLOS 2010).  When the ``syncs``-th synchronisation operation of the
launch is one of the change points, the warp that ran it drops below every initial priority.

Asynchronous completions (a TMA load's bytes landing and its complete_tx; a tcgen05.commit's
arrive) are held in flight and delivered after the number of scheduling decisions the schedule
gives their issue ordinal (0: at the next decision).  A TMA load lands its bytes before its
complete_tx (one delivery), and one thread's commits arrive in issue order (a later commit tracks
every operation an earlier one does).  Copies into the same mbarrier otherwise complete in any
order, as the ISA allows.

A warp whose slice ends where its previous one did (its pcs and registers) with no progress in
between (no store, arrive or exit by any thread: a spin) yields to the warps of lower priority until progress;
when only spinning warps can run they take turns, so a spin loop waiting on a lower-priority
warp cannot livelock the schedule.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..state import State

#: mnemonics after which a warp's slice ends: where one warp's order against another's matters
SYNC_MNEMONICS = (
    "bar", "barrier", "mbarrier", "fence", "membar", "atom", "red", "st.async", "red.async",
    "cp.async", "tcgen05.commit", "tcgen05.wait", "tcgen05.fence", "clusterlaunchcontrol",
    "griddepcontrol", "setmaxnreg", "wgmma.commit_group", "wgmma.wait_group", "tensormap")
#: plain memory accesses that order (acquire / release / volatile): also synchronisation
SYNC_QUALIFIERS = ("acquire", "release", "volatile", "relaxed")

SLICE = 64  # the longest slice without a synchronisation operation (as the default schedule)


def is_sync(inst) -> bool:
    m = inst.mnemonic
    if any(m == s or m.startswith(s + ".") for s in SYNC_MNEMONICS):
        return True
    if m in ("ld", "st"):
        head = inst.text.split()[0] if inst.text else ""
        if head.startswith("@"):
            head = inst.text.split()[1]
        return any(q in head.split(".") for q in SYNC_QUALIFIERS)
    return False


_FLAGS: tuple = (None, None)  # the last code decoded (a reused machine's) and its flags


def sync_flags(code) -> list:
    """Per pc: whether the instruction is a synchronisation operation (kept for the last code)."""
    global _FLAGS
    last = _FLAGS  # (one read: threads of an executor may replace it meanwhile)
    if last[0] is code:
        return last[1]
    flags = [is_sync(i) for i in code]
    _FLAGS = (code, flags)
    return flags


@dataclass
class Schedule:
    """One schedule: replayable from (seed, index) with the launch's counts, or written out."""
    seed: int
    index: int
    prio: list  # priority of the i-th warp of a cluster (cluster order); higher runs first
    changes: list  # sorted synchronisation-operation counts at which the running warp drops
    delays: dict = field(default_factory=dict)  # async issue ordinal -> decisions in flight

    def key(self) -> tuple:
        """What the run depends on: two schedules of one key run alike (runs are deterministic)."""
        return tuple(self.prio), tuple(self.changes), tuple(sorted(self.delays.items()))

    def describe(self) -> str:
        d = ", ".join(f"#{k}+{v}" for k, v in sorted(self.delays.items())) or "none"
        return (f"schedule (seed {self.seed}, index {self.index}): warp priorities {self.prio}, "
                f"change points at synchronisation operations {self.changes or 'none'}, "
                f"async completions delayed {d}")


def draw(seed: int, index: int, *, warps: int, syncs: int, asyncs: int, depth: int,
         p_delay: float = 0.5, max_delay: int | None = None) -> Schedule:
    """The schedule of ``index`` under ``seed``: a random priority per warp, ``depth - 1`` change
    points uniform over the ``syncs`` synchronisation operations of the launch, and each of its
    ``asyncs`` completions delayed with probability ``p_delay`` by 1..``max_delay`` decisions."""
    rng = random.Random(f"tile-sim-explore:{seed}:{index}")  # str seeds hash deterministically
    prio = list(range(depth, depth + warps))
    rng.shuffle(prio)
    changes = sorted(rng.sample(range(1, syncs + 1), min(depth - 1, syncs))) if syncs else []
    md = max_delay or 4 * warps + 4
    delays = {}
    for i in range(asyncs):
        if rng.random() < p_delay:
            delays[i] = rng.randint(1, md)
    return Schedule(seed, index, prio, changes, delays)


def distinct(seed: int, n: int, **kw):
    """The indices among 0..n-1 whose schedule differs from every earlier index's, in order (a
    launch with few warps and synchronisation operations draws the same schedule again: it runs
    once)."""
    seen: set = set()
    for i in range(n):
        k = draw(seed, i, **kw).key()
        if k not in seen:
            seen.add(k)
            yield i


class PriorityPolicy:
    """Runs a :class:`Schedule` on the scheduler's hooks; counts what a schedule can vary."""

    def __init__(self, schedule: Schedule):
        self.s = schedule
        self.asyncs = 0  # completions issued (their ordinal indexes ``delays``)
        self.max_warps = 0
        self.arrivers: dict = {}  # mbarrier uid -> {(CTA, warp)} that arrived on it
        self.cl = None
        self._changed = 0
        self.inflight: list = []  # [due decision, ordinal, land, what, line, issuer]
        self.decision = 0
        self._commit_due: dict = {}
        self.delivering = None

    # ---- scheduler hooks
    def sync_flags(self, code):
        return sync_flags(code)

    def touch(self, obj):  # the synchronisation object an operation uses (systematic.py orders them)
        pass

    def note_arrive(self, t, mb):
        self.arrivers.setdefault(mb.uid, set()).add((t.cta.idx, t.warp.idx))

    def issue(self, M, land, what, line, t):
        n = self.asyncs
        self.asyncs += 1
        due = self.decision + self.s.delays.get(n, 0)
        if what == "tcgen05.commit" and t is not None:  # one thread's commits arrive in order
            due = max(due, self._commit_due.get(t.gid, 0))
            self._commit_due[t.gid] = due
        self.inflight.append([due, n, land, what, line, t])

    def _deliver(self, M, item):
        self.inflight.remove(item)
        self.delivering = item  # whose bytes land (blame.py names its issuing line)
        try:
            item[2]()
        finally:
            self.delivering = None

    def _deliver_due(self, M):
        due = sorted((it for it in self.inflight if it[0] <= self.decision), key=lambda x: x[:2])
        for it in due:
            self._deliver(M, it)

    def run_cluster(self, M, cl):
        self.cl = cl
        warps = [w for c in cl.ctas for w in c.warps]
        self.max_warps = max(self.max_warps, len(warps))
        prio = self.s.prio
        base = len(prio)
        rank = {id(w): (prio[i] if i < base else -i) for i, w in enumerate(warps)}
        changes = self.s.changes
        spinning: set = set()
        gate = WarpgroupGate(M)
        ends: dict = {}  # warp -> (its lanes' pcs, progress) where its last slice ended
        last = M.progress
        turn = 0
        ctas = cl.ctas
        while True:
            self._deliver_due(M)
            if all(c.live == 0 for c in ctas):
                if self.inflight:
                    self._deliver(M, min(self.inflight, key=lambda x: x[:2]))
                    continue
                break
            order = sorted(warps, key=lambda w: -rank[id(w)])
            ran = None
            for w in order:
                if id(w) not in spinning and not gate.held(w) and M._run_warp(w, SLICE):
                    ran = w
                    break
            if ran is None and spinning:  # only spinners can run: they take turns
                turn += 1
                for k in range(len(order)):
                    w = order[(turn + k) % len(order)]
                    if not gate.held(w) and M._run_warp(w, SLICE):
                        ran = w
                        break
            if ran is not None:
                gate.ran(ran, M.cur)
            M.check_budget(cl)
            self.decision += 1
            if ran is None:
                if self.inflight:  # the hardware completes what is in flight eventually
                    self._deliver(M, min(self.inflight, key=lambda x: x[:2]))
                    continue
                M.stalled(ctas)
                continue
            if M.progress != last:
                last = M.progress
                M.last_progress = (M.progress, M.steps)
                spinning.clear()
            else:  # back where its last slice ended, nothing stored, arrived or exited since
                at = spin_point(ran, last)
                if ends.get(id(ran)) == at:
                    spinning.add(id(ran))
                ends[id(ran)] = at
            while self._changed < len(changes) and M.syncs >= changes[self._changed]:
                self._changed += 1
                rank[id(ran)] = len(changes) - self._changed  # below every initial priority


def spin_point(w, progress):
    """Where warp ``w``'s slice ended: its lanes' pcs and registers, and the progress count.  The
    same point twice with no progress between is a spin (a compute loop changes registers)."""
    first = next((tuple(t.r) for t in w.threads if t.state == State.RUN), None)  # (its first
    return (tuple(t.pc for t in w.threads), () if first is None else (first,), progress)  # lane's)


class WarpgroupGate:
    """A wgmma is one operation of its warpgroup (the four warps 4k..4k+3 of a CTA issue it
    together), so no warp's wgmma.wait_group returns before every warp of its warpgroup has issued
    the groups it waits for: a warp at wgmma.wait_group that has committed more wgmma groups than
    another live warp of its warpgroup is held until that warp catches up.  (tile-sim runs a
    warp's part of a wgmma when that warp arrives; the default schedule's round-robin keeps the
    four together, a schedule policy could otherwise release a ring stage, after one warp's wait,
    that a slower warp of the warpgroup has yet to read.)"""

    def __init__(self, M):
        self.code = M.code
        self.commits: dict = {}  # id(warp) -> wgmma.commit_group executed
        self.used = any(i.mnemonic == "wgmma.commit_group" for i in M.code)

    def ran(self, w, inst):
        if self.used and inst is not None and inst.mnemonic == "wgmma.commit_group":
            self.commits[id(w)] = self.commits.get(id(w), 0) + 1

    def held(self, w) -> bool:
        if not self.used:
            return False
        pcs = [t.pc for t in w.threads if t.state == State.RUN]
        if not pcs or min(pcs) >= len(self.code) or \
                self.code[min(pcs)].mnemonic != "wgmma.wait_group":
            return False
        mine = self.commits.get(id(w), 0)
        k = w.idx - w.idx % 4
        for o in w.cta.warps[k:k + 4]:
            if o is not w and self.commits.get(id(o), 0) < mine and \
                    any(t.state != State.EXITED for t in o.threads):
                return True
        return False


def blocked_threads(cl):
    return [t for c in cl.ctas for t in c.threads
            if t.state not in (State.EXITED, State.RUN)]
