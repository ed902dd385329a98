"""The bounded systematic mode: every order of a small launch's synchronisation operations, up to a
partial-order reduction (sleep sets, Godefroid 1996), by stateless depth-first search over
re-executions (docs/emulator.md §15, what it proves).

An *agent* is a warp (its next slice: plain instructions up to and including one synchronisation
operation, as under a PCT schedule) or an asynchronous completion in flight (a TMA or bulk load's
bytes and complete_tx, a tcgen05.commit's arrive, an st.async, a CLC response, a bulk store's
global writes).  At each scheduling decision the search may run any enabled agent; one run follows
a prefix of choices and then the default (the warp that ran last while it can, then the lowest
warp, completions last).  A transition's *footprint* is the set of synchronisation objects it used
(mbarriers by CTA and offset, named barriers by CTA and id; sim/handlers report them through the
policy's ``touch``), and the 4-byte words of shared memory its plain loads and stores accessed
(through the machine's shared-memory hooks); a synchronisation operation that reports none (atomics, volatile or acquire
accesses, barrier.cluster, tcgen05.wait, ...) is dependent on everything.  Two transitions with
disjoint footprints commute; the sleep sets skip an order that only swaps commuting transitions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import EmulationError
from ..state import State
from . import driver
from .policy import SLICE, WarpgroupGate, is_sync, spin_point

WILD = frozenset({"*"})  # dependent on every transition
_QUIET = ("fence", "membar", "setmaxnreg", "griddepcontrol")  # synchronise nothing between warps


class _Abandon(Exception):
    """Every enabled agent is asleep: each continuation is an order already explored."""


@dataclass
class Node:
    enabled: list
    sleep: dict  # agent -> footprint: asleep here
    chosen: object = None
    fp: dict = field(default_factory=dict)  # agent -> footprint of its transition from here
    done: dict = field(default_factory=dict)  # agent -> footprint: explored from here
    backtrack: set = field(default_factory=set)  # agents to run from here (the races found)

    def child_sleep(self) -> dict:
        f = self.fp[self.chosen]
        return {a: g for a, g in {**self.sleep, **self.done}.items()
                if a != self.chosen and independent(f, g)}


def independent(f, g) -> bool:
    return "*" not in f and "*" not in g and f.isdisjoint(g)


@dataclass
class Choices:
    """One systematic schedule: the agents chosen at its decisions (replay: :func:`replay_run`)."""
    index: int
    choices: list

    def describe(self) -> str:
        shown = ", ".join(_name(a) for a in self.choices[:40])
        more = f", ... ({len(self.choices)} decisions)" if len(self.choices) > 40 else ""
        return f"systematic schedule {self.index}: {shown}{more}"


def _name(a) -> str:
    return f"CTA {a[1]} warp {a[2]}" if a[0] == "w" else f"async #{a[1]}"


class ChoicePolicy:
    """Follows ``prefix``, then the default choice; records each decision's node in ``nodes``."""

    def __init__(self, prefix, nodes):
        self.prefix, self.nodes = prefix, nodes
        self.depth = 0
        self.inflight: list = []  # [ordinal, land, what, issuer gid]
        self.asyncs = 0
        self.touched: set = set()
        self.arrivers: dict = {}
        self.cl = None
        self.max_warps = 0
        self.taken: list = []

    def sync_flags(self, code):
        return [is_sync(i) for i in code]

    def touch(self, obj):
        self.touched.add(obj)

    def touch_shared(self, cta, off, n):
        """A plain shared-memory access: its 4-byte words join the transition's footprint, so two
        transitions that access one word (read or write) are dependent (plain races searched)."""
        for w in range(off >> 2, (off + n + 3) >> 2):
            self.touched.add(("smem", cta.idx, w))

    def note_arrive(self, t, mb):
        self.arrivers.setdefault(mb.uid, set()).add((t.cta.idx, t.warp.idx))

    def issue(self, M, land, what, line, t):
        self.inflight.append([self.asyncs, land, what, None if t is None else t.gid])
        self.asyncs += 1

    def _deliverable(self):
        """In-flight completions that may land now: one thread's commits in issue order."""
        seen, out = set(), []
        for it in self.inflight:
            if it[2] == "tcgen05.commit":
                if it[3] in seen:
                    continue
                seen.add(it[3])
            out.append(("a", it[0]))
        return out

    def _deliver(self, ordinal):
        it = next(x for x in self.inflight if x[0] == ordinal)
        self.inflight.remove(it)
        it[1]()

    def run_cluster(self, M, cl):
        self.cl = cl
        M.hooks.register(shared_load=_load_seen, shared_store=_store_seen)
        warps = {("w", c.idx, w.idx): w for c in cl.ctas for w in c.warps}
        self.max_warps = max(self.max_warps, len(warps))
        ctas, last, prev, spinning, ends = cl.ctas, M.progress, None, set(), {}
        stuck: set = set()  # warps that could not run at this decision after all
        gate = WarpgroupGate(M)
        while True:
            if all(c.live == 0 for c in ctas):
                while self.inflight:  # nothing can observe their order now
                    self._deliver(self.inflight[0][0])
                break
            ready = [a for a, w in warps.items() if a not in stuck and not gate.held(w)
                     and any(t.state == State.RUN for t in w.threads)]
            enabled = [a for a in ready if a not in spinning] or ready
            enabled += self._deliverable()
            if not enabled:
                M.stalled(ctas)  # try_wait's time limit once, else the deadlock
                continue
            node = self._node(enabled, prev)
            a = node.chosen
            self.touched = set()
            if a[0] == "w":
                if not M._run_warp(warps[a], SLICE):  # could not run after all: decide again
                    stuck.add(a)
                    self.depth -= 1
                    self.taken.pop()
                    if self.depth < len(self.prefix):
                        raise EmulationError("systematic replay: the schedule's warp "
                                             f"{_name(a)} cannot run at decision {self.depth}")
                    del self.nodes[self.depth:]
                    continue
                stuck.clear()
                inst = M.cur
                gate.ran(warps[a], inst)
                fp = frozenset(self.touched)
                if not fp and inst is not None and is_sync(inst) and \
                        not inst.mnemonic.startswith(_QUIET):
                    fp = WILD
            else:
                self._deliver(a[1])
                fp = frozenset(self.touched)
            node.fp[a] = fp
            M.check_budget(cl)
            if a[0] == "w":
                prev = a
                if M.progress != last:
                    last = M.progress
                    M.last_progress = (M.progress, M.steps)
                    spinning.clear()
                else:  # a spin loop: it yields until some progress (as under PCT)
                    at = spin_point(warps[a], last)
                    if ends.get(a) == at:
                        spinning.add(a)
                    ends[a] = at

    def _node(self, enabled, prev) -> Node:
        d = self.depth
        if d < len(self.prefix):
            node = self.nodes[d]
            node.chosen = self.prefix[d]
        else:
            sleep = self.nodes[d - 1].child_sleep() if d else {}
            node = Node(list(enabled), sleep)
            if len(self.nodes) > d:
                del self.nodes[d:]
            self.nodes.append(node)
            order = ([prev] if prev in enabled else []) + enabled
            node.chosen = next((a for a in order if a not in sleep), None)
            if node.chosen is None:
                raise _Abandon()
        self.depth += 1
        self.taken.append(node.chosen)
        return node


def _load_seen(M, t, cta, off, n, what=None):
    if isinstance(M.policy, ChoicePolicy):
        M.policy.touch_shared(cta, off, n)


def _store_seen(M, t, cta, off, n):
    if isinstance(M.policy, ChoicePolicy):
        M.policy.touch_shared(cta, off, n)


def add_backtracks(nodes):
    """Dynamic partial-order reduction (Flanagan and Godefroid, POPL 2005) on the run just made.
    Happens-before is tracked with vector clocks over the agents: a transition is ordered after
    its agent's previous one and after every earlier transition it is dependent on (one that used
    an object it uses, or any transition, when either is dependent on everything).  For each
    transition, the last earlier transition of another agent that is dependent on it and does not
    happen before the agent's previous transition is a race: the later agent is to be tried at the earlier
    one's decision (every agent enabled there, when it was not enabled)."""
    path = [(n, n.chosen, n.fp.get(n.chosen, WILD)) for n in nodes if n.chosen is not None]
    agent_clock: dict = {}
    obj_clock: dict = {}
    wild_clock: dict = {}  # the clock of the last transition dependent on everything
    all_clock: dict = {}  # the join of every clock so far
    seen: list = []  # (agent, its local index, footprint, node) of each transition
    count: dict = {}
    for node, a, f in path:
        count[a] = count.get(a, 0) + 1
        mine = agent_clock.get(a, {})  # what happened before this agent's step
        for b, k, g, nb in reversed(seen):  # the last race with this transition
            if b != a and not independent(f, g) and mine.get(b, 0) < k:
                if a in nb.enabled:
                    nb.backtrack.add(a)
                else:
                    nb.backtrack.update(nb.enabled)
                break
        c = dict(mine)
        deps = [all_clock] if "*" in f else [wild_clock] + [obj_clock.get(o, {}) for o in f]
        for d in deps:
            for k, v in d.items():
                if c.get(k, 0) < v:
                    c[k] = v
        c[a] = count[a]
        agent_clock[a] = c
        if "*" in f:
            wild_clock = c
        for o in f:
            obj_clock[o] = c
        for k, v in c.items():
            if all_clock.get(k, 0) < v:
                all_clock[k] = v
        seen.append((a, count[a], f, node))


def next_prefix(nodes):
    """The next unexplored branch (a prefix of choices), or None when the search is complete."""
    add_backtracks(nodes)
    while nodes:
        node = nodes[-1]
        if node.chosen is not None:  # (a transition that raised: dependent on everything)
            node.done[node.chosen] = node.fp.get(node.chosen, WILD)
        cand = [a for a in node.enabled if a in node.backtrack and a not in node.done
                and a not in node.sleep]
        if cand:
            node.chosen = cand[0]
            return [x.chosen for x in nodes]
        nodes.pop()
    return None


def systematic_launch(ptx, kernel, args, *, n: int, check=None, progress=None, **launch_kw):
    """Depth-first search over the launch's orders (at most ``n`` runs, complete or cut by a sleep
    set): an :class:`~.driver.ExploreResult` whose ``exhaustive`` says whether the search ended
    before its bound (then every order up to the reduction was run)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise EmulationError(f"systematic={n!r} must be a positive number of schedules")
    kw, ref, ref_res = driver.reference(ptx, kernel, args, launch_kw)
    out = driver.ExploreResult(0, 0, 0, {"warps": 0, "syncs": 0, "asyncs": 0}, default=ref_res,
                               strategy="systematic")
    nodes, prefix, runs, cut = [], [], 0, 0
    box: list = []  # the launch's machine, reused by every run (reuse.py)
    bar = driver._bar(n, progress)
    try:
        while runs < n:
            pol = ChoicePolicy(prefix, nodes)
            runs += 1
            try:
                res, a, err, m = driver._run(ptx, kernel, args, kw, pol, box, ref["findings"])
            except _Abandon:
                cut += 1
                res = None
            if bar is not None:
                bar.update(1)
            out.counts["warps"] = max(out.counts["warps"], pol.max_warps)
            if res is not None or err is not None:
                out.schedules += 1
                v = driver._verdict(ref, res, a, err, m, pol, check)
                if v is not None:
                    out.failure = driver.Failure(Choices(runs - 1, list(pol.taken)), *v)
                    break
            prefix = next_prefix(nodes)
            if prefix is None:
                out.exhaustive = True
                break
    finally:
        if bar is not None:
            bar.close()
    out.notes.append(f"{runs} run(s): {out.schedules} complete, {cut} cut by a sleep set; "
                     + ("the search is complete" if out.exhaustive else
                        "the search stopped at its bound" if out.failure is None else
                        "stopped at the failure"))
    return out


def replay_run(ptx, kernel, args, choices, *, check=None, **launch_kw):
    """Run one systematic schedule again from its choices: (Failure or None)."""
    kw, ref, _ = driver.reference(ptx, kernel, args, launch_kw)
    pol = ChoicePolicy(list(choices), [])
    pol.nodes = _Nodes(choices)
    res, a, err, m = driver._run(ptx, kernel, args, kw, pol, known=ref["findings"])
    v = driver._verdict(ref, res, a, err, m, pol, check)
    return None if v is None else driver.Failure(Choices(-1, list(choices)), *v)


class _Nodes(list):
    """Nodes for a replay: a fresh node at each decision of the given choices."""

    def __init__(self, choices):
        super().__init__(Node([c], {}) for c in choices)
