"""CTA barriers (bar / barrier), cluster barriers, membar / fence.

Happens-before knowledge for the TMEM race check (see tcgen05_async.py) travels through barriers: when a
barrier completes, every participant's knowledge of completed mbarrier phases is merged.  A barrier
that waits for all live threads completes when the last missing one exits (thread-exit hook).
"""

from __future__ import annotations

from .. import findings
from ..errors import EmulationError
from ..state import Kept, State, proxy_fence, publish_epochs

# barrier id -> [arrived threads, expected count or None (all live threads), bar.red arrivals,
# the arrived threads that wait (bar.sync, bar.red)], for the current phase
BARS = Kept("sync", "cta", lambda cta: {})


class _ClusterBarrier:
    """``gen``: completed phases; ``waiters``: the threads arrived in the current phase;
    ``arrived_in``: thread gid -> the phase of its last arrive."""
    __slots__ = ("gen", "waiters", "arrived_in")

    def __init__(self, cl):
        self.gen = 0
        self.waiters = []
        self.arrived_in = {}


CLUSTER_BAR = Kept("sync", "cluster", _ClusterBarrier)


def merge_seen(threads, extra=None):
    """What the threads and ``extra`` know together: each key's largest count."""
    if len(threads) == 1:  # (an mbarrier arrive or wait: the smaller of the two dicts merged into the larger)
        a, b = threads[0].seen, extra or {}
        if len(a) < len(b):
            a, b = b, a
        merged = dict(a)
        get = merged.get
        for k, v in b.items():
            if get(k, -1) < v:
                merged[k] = v
        return merged
    merged = dict(extra) if extra else {}
    for t in threads:
        for k, v in t.seen.items():
            if merged.get(k, -1) < v:
                merged[k] = v
    return merged


def release(threads, waiting_state: int, waiters=None) -> None:
    """A barrier completes: its waiters (every participant, or ``waiters``: those that wait on it)
    learn what any participant had seen, and those blocked in `waiting_state` run again.  A thread
    that only arrived (bar.arrive) waits for nothing here: it may meanwhile be blocked on another
    barrier, which this one's completion must not release."""
    waiters = threads if waiters is None else waiters
    publish_epochs(threads, waiters)
    merged = merge_seen(threads)
    for t in waiters:
        t.seen = dict(merged)
        if t.state == waiting_state:
            t.state = State.RUN


# ------------------------------------------------------------------------------- CTA barrier
def decode_bar(d, inst):
    """bar{.cta}.sync / barrier{.cta}.sync{.aligned} a{, b}; bar.arrive a, b; and
    bar.red.popc.u32 d, a{, b}, {!}c / bar.red.{and,or}.pred p, a{, b}, {!}c (PTX ISA "bar,
    barrier"): the reduction over the participants' predicates lands in every participant's d
    when the barrier completes."""
    p = inst.parts
    red = None
    if "red" in p:
        op = next((q for q in p if q in ("popc", "and", "or")), None)
        if op is None or (op == "popc") != ("u32" in p) or (op != "popc") != ("pred" in p):
            raise d.error("bar.red takes .popc.u32 or .and.pred / .or.pred")
        ops = d.operands(3, 4)
        dst, ops, pred = ops[0], ops[1:-1], ops[-1]
        red = (op, d.slot(dst), d.src(pred, 1))
    wait = "sync" in p or red is not None
    if not wait and "arrive" not in p:
        raise d.error("unknown barrier form")
    if red is None:
        ops = d.operands(0, 2)
    if not ops:
        ops = [("imm", 0)]
    bid_e = d.src(ops[0], 32)
    cnt_e = d.src(ops[1], 32) if len(ops) > 1 else "None"
    if not wait and len(ops) < 2:
        raise d.error("bar.arrive needs a thread count")
    d.M.hooks.register(thread_exit=on_exit)
    line = inst.line
    if red is not None:
        return d.compile([f"_bar_arrive(M, t, {bid_e}, {cnt_e}, True, {line}, "
                          f"({red[0]!r}, {red[1]}, {red[2]}))"], {"_bar_arrive": bar_arrive})
    return d.compile([f"_bar_arrive(M, t, {bid_e}, {cnt_e}, {wait}, {line})"],
                     {"_bar_arrive": bar_arrive})


def bar_arrive(M, t, bid, cnt, wait, line=None, red=None):
    if bid > 15:
        raise EmulationError(f"barrier id {bid} out of range 0..15")
    if cnt is not None and (cnt <= 0 or cnt % 32):
        raise EmulationError(f"barrier thread count {cnt} must be a positive multiple of 32")
    c = t.cta
    if M.policy is not None:  # the object a systematic schedule orders (sim/explore/)
        M.policy.touch(("bar", c.idx, bid))
    bars = BARS.of(c)
    st = bars.get(bid)
    if st is None:  # [arrived threads, expected count, bar.red arrivals, waiting threads]
        st = bars[bid] = [[], cnt, [], []]
    elif cnt is not None and st[1] is not None and st[1] != cnt:
        findings.report(M, "bar-count", f"line {line}: barrier {bid} is used with thread count "
                        f"{cnt} while {len(st[0])} threads wait on it with count {st[1]} (tile-sim "
                        f"then waits for the larger count)", line=line)
        st[1] = max(st[1], cnt)
    elif cnt is not None:
        st[1] = cnt
    st[0].append(t)
    if red is not None:
        st[2].append((t, red))
    if wait:
        t.state = State.BAR
        st[3].append(t)
    M.progress += 1
    _check_bar(bars, c, bid)


def _check_bar(bars, c, bid):
    arr, cnt, reds, waiters = bars[bid]
    expected = cnt if cnt is not None else c.live
    if len(arr) >= expected and arr:
        del bars[bid]
        if reds:
            _reduce(reds)
        release(arr, waiting_state=State.BAR, waiters=waiters)


def _reduce(reds):
    """bar.red: every participant's d gets the reduction of all participants' predicates (the
    operation of the first; the ISA requires one operation per barrier instance)."""
    op = reds[0][1][0]
    vals = [v != 0 for _, (_, _, v) in reds]
    r = sum(vals) if op == "popc" else int(all(vals) if op == "and" else any(vals))
    for t, (_, slot, _) in reds:
        t.r[slot] = r


def on_exit(M, t):
    """Thread-exit hook (state.Hooks): barriers that wait for all live threads may now be complete."""
    bars = BARS.peek(t.cta)
    if bars:
        for bid in list(bars):
            if bid in bars:
                _check_bar(bars, t.cta, bid)
    cb = CLUSTER_BAR.peek(t.cta.cluster)
    if cb is not None:
        check_cluster_barrier(t.cta.cluster, cb)


# ------------------------------------------------------------------------------- cluster barrier
def decode_barrier_cluster_arrive(d, inst):
    d.M.hooks.register(thread_exit=on_exit)
    return d.compile(["_cl_arrive(M, t)"], {"_cl_arrive": cluster_arrive})


def decode_barrier_cluster_wait(d, inst):
    d.M.hooks.register(thread_exit=on_exit)
    return d.compile(["_cl_wait(t)"], {"_cl_wait": cluster_wait})


def cluster_arrive(M, t):
    cl = t.cta.cluster
    cb = CLUSTER_BAR.of(cl)
    if cb.arrived_in.get(t.gid) == cb.gen:
        raise EmulationError("barrier.cluster.arrive twice in the same phase without "
                             "barrier.cluster.wait")
    cb.arrived_in[t.gid] = cb.gen
    cb.waiters.append(t)
    M.progress += 1
    check_cluster_barrier(cl, cb)


def cluster_wait(t):
    cb = CLUSTER_BAR.of(t.cta.cluster)
    phase = cb.arrived_in.get(t.gid)
    if phase is None:
        raise EmulationError("barrier.cluster.wait without a preceding barrier.cluster.arrive")
    if phase == cb.gen:  # current phase not complete yet
        t.state = State.CLUSTER


def check_cluster_barrier(cl, cb):
    if not cb.waiters:
        return
    if len(cb.waiters) >= sum(c.live for c in cl.ctas):
        cb.gen += 1
        arr = cb.waiters
        cb.waiters = []
        release(arr, waiting_state=State.CLUSTER)


# ------------------------------------------------------------------------------- fences
def decode_fence(d, inst):
    p = inst.parts
    if len(p) > 1 and p[1] == "proxy" and _orders_shared_for_async(".".join(p[2:])):
        # generic-proxy writes of this thread (and those it knows of) to shared memory become visible
        # to the async proxy (state.unfenced_writers)
        return d.compile(["_pf(t)"], {"_pf": proxy_fence})
    return d.compile([])


def _orders_shared_for_async(kind: str) -> bool:
    """Whether ``fence.proxy.<kind>`` orders this thread's generic-proxy writes to shared memory
    before later async-proxy accesses (PTX ISA "membar / fence"): the bidirectional
    fence.proxy.async over every state space or over shared memory, and the unidirectional
    generic-to-async release (.async::generic.release.sync_restrict::shared::cta); not
    fence.proxy.async.global (another state space), nor the acquire direction."""
    return kind in ("async", "async.shared::cta", "async.shared::cluster") or \
        kind.startswith("async::generic.release")


decode_membar = decode_fence


# ------------------------------------------------------------------------------- launch control
def decode_griddepcontrol(d, inst):
    """griddepcontrol.launch_dependents / .wait (programmatic dependent launch, PTX ISA
    "griddepcontrol"): within one launch both are no-ops -- the launch's prerequisite grids have
    completed and their memory is visible before it starts, as :func:`tile_mlir.sim.launch.
    run_launches` runs a sequence of launches in order."""
    p = inst.parts
    if len(p) != 2 or p[1] not in ("launch_dependents", "wait"):
        raise d.error("griddepcontrol takes .launch_dependents or .wait")
    d.operands(0)
    return d.compile([])


findings.RULES.setdefault("bar-count", (
    "PTX ISA, bar / barrier: all threads that use a barrier instance in one phase give it the "
    "same thread count b"))
