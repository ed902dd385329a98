"""mbarrier.* with the state machine of PTX ISA "mbarrier" (docs/tcgen05.md §9):

    state {phase (completed-phase count), pending, expected, tx}
    init(n): phase 0, pending = expected = n, tx 0
    arrive(k): pending -= k; arrive.expect_tx(n): tx += n then arrive(1); complete_tx(n): tx -= n
    (by mbarrier.complete_tx, or by a TMA copy as it completes: handlers/tma.py); tx stays in
    -(2^20-1)..(2^20-1); the phase completes when pending == 0 and tx == 0: phase += 1,
    pending = expected
    test_wait/try_wait.parity(p) is true iff p != (phase & 1); with a state token iff the
    token's phase has completed.

A wait that would return false parks the thread until the phase completes (see machine.py).
"""

from __future__ import annotations

from ..errors import EmulationError
from ..memory import MBarrier
from ..state import State
from .sync import merge_seen

MAX_COUNT = (1 << 20) - 1
TOKEN_TAG = 1 << 63


def _space(parts):
    if "shared::cluster" in parts:
        return "cluster"
    if "shared" in parts or "shared::cta" in parts:
        return "shared"
    return "generic"


def _addr(d, inst, op):
    ae, sym = d.addr_expr(op)
    space = _space(inst.parts)
    if sym == "shared" and space == "generic":
        space = "shared"
    return ae, space


def locate(M, t, a, space, what):
    c, off = M.shared_target(t, a, space)
    if off % 8:
        raise EmulationError(f"{what}: mbarrier address 0x{off:x} is not 8-byte aligned")
    c.smem.check(off, 8, "mbarrier")
    return c, off


def get(M, t, a, space, what):
    c, off = locate(M, t, a, space, what)
    mb = c.smem.mbarriers.get(off)
    if mb is None:
        raise EmulationError(f"{what}: use of an uninitialised mbarrier at shared 0x{off:x} of "
                             f"CTA {c.idx} (no mbarrier.init)")
    if M.policy is not None:  # the object a systematic schedule orders (sim/explore/)
        M.policy.touch(("mbarrier", c.idx, off))
    return mb


def arrive(M, t, mb, count=1, tx=0, drop=False, no_complete=False):
    if tx:
        mb.tx += tx
        mb.tx_expected += tx
        _check_tx(mb)
    if count > mb.pending:
        raise EmulationError(f"arrive count {count} exceeds the {mb.pending} pending arrivals "
                             f"of {mb.describe()}")
    token = TOKEN_TAG | (mb.uid << 32) | mb.completed
    mb.pending -= count
    if drop:
        mb.expected -= count
    if t is not None:
        mb.carry = merge_seen([t], mb.carry)
    if M.policy is not None:  # who arrives on it: a deadlock report's possible releasers
        M.policy.touch(("mbarrier", mb.cta.idx, mb.off))
        if t is not None:
            M.policy.note_arrive(t, mb)
    if no_complete and mb.pending == 0 and mb.tx == 0:
        raise EmulationError(f"mbarrier.arrive.noComplete would complete the phase of "
                             f"{mb.describe()}")
    M.progress += 1
    check_complete(M, mb)
    return token


def complete_tx(M, mb, n):
    """complete-tx of ``n`` bytes (mbarrier.complete_tx, or a TMA copy's completion)."""
    if M.policy is not None:
        M.policy.touch(("mbarrier", mb.cta.idx, mb.off))
    mb.tx -= n
    mb.tx_arrived += n
    _check_tx(mb)
    M.progress += 1
    check_complete(M, mb)


def expect_tx(M, mb, n):
    mb.tx += n
    mb.tx_expected += n
    _check_tx(mb)
    M.progress += 1


def _check_tx(mb):
    if abs(mb.tx) > MAX_COUNT:
        raise EmulationError(f"tx-count of {mb.describe()} out of range "
                             f"-(2^20-1)..(2^20-1)")


def check_complete(M, mb):
    if mb.pending == 0 and mb.tx == 0:
        mb.completed += 1
        mb.pending = mb.expected
        mb.tx_expected = mb.tx_arrived = 0
        ws = mb.waiters
        mb.waiters = []
        for w in ws:
            if w.state == State.MBAR and w.wait_on is not None and w.wait_on[0] is mb:
                w.state = State.RUN
                w.wait_on = None


# ------------------------------------------------------------------------------- decoders
def decode_init(d, inst):
    dst, cnt = d.operands(2)
    ae, space = _addr(d, inst, dst)
    return d.compile([f"_init(M, t, {ae}, '{space}', {d.src(cnt, 32)}, {inst.line})"],
                     {"_init": _init})


def _init(M, t, a, space, count, line):
    c, off = locate(M, t, a, space, "mbarrier.init")
    if not 1 <= count <= MAX_COUNT:
        raise EmulationError(f"mbarrier.init count {count} out of range 1..{MAX_COUNT}")
    sm = c.smem
    old = sm.mbarriers.get(off)
    if old is not None:
        raise EmulationError(f"mbarrier.init on a live {old.describe()} (initialised at line "
                             f"{old.init_line}) without mbarrier.inval")
    sm.mbarriers[off] = MBarrier(c, off, count, line)
    sm.mbar_mask[off:off + 8] = b"\x01" * 8
    sm.buf[off:off + 8] = bytes(8)
    M.progress += 1


def decode_inval(d, inst):
    ae, space = _addr(d, inst, d.operands(1)[0])
    return d.compile([f"_inval(M, t, {ae}, '{space}')"], {"_inval": _inval})


def _inval(M, t, a, space):
    mb = get(M, t, a, space, "mbarrier.inval")
    if any(w.state == State.MBAR and w.wait_on and w.wait_on[0] is mb for w in mb.waiters):
        raise EmulationError(f"mbarrier.inval of {mb.describe()} while threads wait on it")
    sm = mb.cta.smem
    del sm.mbarriers[mb.off]
    sm.mbar_mask[mb.off:mb.off + 8] = bytes(8)


def decode_arrive(d, inst):
    p = inst.parts
    drop = p[1] == "arrive_drop"
    expect = "expect_tx" in p
    no_complete = "noComplete" in p
    ops = d.operands(2, 3)
    state, addr = ops[0], ops[1]
    ae, space = _addr(d, inst, addr)
    if space == "cluster" and state[0] != "sink":
        raise d.error("mbarrier.arrive on .shared::cluster returns no state: use `_`")
    if expect:
        if len(ops) != 3:
            raise d.error("arrive.expect_tx needs a tx count")
        cnt, tx = "1", d.src(ops[2], 32)
    else:
        cnt, tx = (d.src(ops[2], 32) if len(ops) > 2 else "1"), "0"
    lines = [f"_mb = _get(M, t, {ae}, '{space}', 'mbarrier.arrive')",
             f"_tok = _arrive(M, t, _mb, {cnt}, {tx}, {drop}, {no_complete})"]
    if state[0] != "sink":
        lines.append(d.dst(state, 64)("_tok"))
    return d.compile(lines, {"_get": get, "_arrive": arrive})


def decode_expect_tx(d, inst):
    addr, tx = d.operands(2)
    ae, space = _addr(d, inst, addr)
    return d.compile([f"_mb = _get(M, t, {ae}, '{space}', 'mbarrier.expect_tx')",
                      f"_etx(M, _mb, {d.src(tx, 32)})"], {"_get": get, "_etx": expect_tx})


def decode_complete_tx(d, inst):
    addr, tx = d.operands(2)
    ae, space = _addr(d, inst, addr)
    return d.compile([f"_mb = _get(M, t, {ae}, '{space}', 'mbarrier.complete_tx')",
                      f"_ctx(M, _mb, {d.src(tx, 32)})"], {"_get": get, "_ctx": complete_tx})


def decode_wait(d, inst):
    p = inst.parts
    parity = "parity" in p
    ops = inst.operands
    if len(ops) < 3:
        raise d.error("mbarrier wait needs `p, [addr], phaseParity|state`")
    dst, addr, arg = ops[0], ops[1], ops[2]
    ae, space = _addr(d, inst, addr)
    if space == "cluster":
        raise d.error("mbarrier waits on .shared::cluster addresses of another CTA are not allowed")
    lines = [f"_mb = _get(M, t, {ae}, '{space}', '{p[0]}.{p[1]}')",
             f"_ok = _wait(M, t, _mb, {d.src(arg, 64)}, {parity})",
             "if _ok is None:",
             "    return",
             d.dst(dst, 1)("_ok")]
    return d.compile(lines, {"_get": get, "_wait": wait})


def wait(M, t, mb, arg, parity):
    if parity:
        done = (arg & 1) != (mb.completed & 1)
    else:
        if not arg & TOKEN_TAG or ((arg >> 32) & 0x7FFFFFFF) != mb.uid:
            raise EmulationError(f"mbarrier wait with a state token that was not produced by an "
                                 f"arrive on {mb.describe()}")
        done = mb.completed > (arg & 0xFFFFFFFF)
    if done:
        t.timeout = False
        t.seen = merge_seen([t], mb.carry)
        if t.seen.get(mb.uid, -1) < mb.completed:
            t.seen[mb.uid] = mb.completed
        return 1
    if t.timeout:  # the scheduler released this waiter once: report a timed-out try_wait
        t.timeout = False
        return 0
    t.state = State.MBAR
    t.pc -= 1
    t.wait_on = (mb,)
    mb.waiters.append(t)
    return None


def decode_pending_count(d, inst):
    raise d.error("mbarrier.pending_count is not supported")
