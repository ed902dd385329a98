"""setmaxnreg.{inc,dec}.sync.aligned.u32 n: warpgroup register reallocation (sm_90a, sm_100a),
with the PTX ISA's rules checked (docs/emulator.md, "Warps, control and launch").

tile-sim's registers are virtual (one slot per PTX register), so the instruction changes no value;
what it models is the CTA's register pool the ISA describes and the rules around it:

* ``n`` is in [24, 256] and a multiple of 8 (refused at decode, as ptxas refuses it);
* the same setmaxnreg is executed by all warps of the warpgroup, and the warps synchronise before
  the next one: warp w's k-th setmaxnreg must equal (action and count) the k-th of every other
  warp of its warpgroup, and the warpgroup must be whole (4 warps) -- else a finding;
* ``.dec`` releases registers to the CTA's pool, ``.inc`` takes them from it and blocks until the
  pool has enough: when every live warp of the CTA waits in ``.inc``, none can free any, and the
  run stops with a deadlock error at the instruction (an exited warp's registers are not returned
  to the pool: the ISA does not say they are); ``.inc`` to fewer, or ``.dec`` to more, registers
  than the warp holds is a finding where the warp's count is known.

The pool's size and a warp's count at launch are not in the PTX (ptxas allocates them): the
assumptions are :data:`ASSUMED` (one named table).
"""

from __future__ import annotations

from .. import findings
from ..errors import EmulationError
from ..state import Kept, State

#: what the ISA leaves to the allocation, assumed here (docs/emulator.md lists them)
ASSUMED = {
    # registers of the SM's register file (sm_90 / sm_100: 64K 32-bit registers), all the CTA's
    "pool": 65536,
    # a warp's count at launch without .maxnreg: the pool shared evenly by the CTA's warps, in
    # steps of 8, at most 256 (so a 384-thread CTA starts at 168, CUTLASS's choice for it)
    "launch_count": lambda nwarps: min(256, (65536 // (32 * nwarps)) // 8 * 8),
}
RULE, RULE_COUNT = "setmaxnreg", "setmaxnreg.count"


class _Pool:
    """``count``: warp index -> its per-thread count; ``known``: whether it is known (from
    .maxnreg or its last setmaxnreg); ``free``: registers in the pool; ``history``: warp ->
    the (action, count, line) of its setmaxnregs in order; ``waiting``: warp -> the count its
    blocked .inc asks for."""
    __slots__ = ("count", "known", "free", "history", "waiting")

    def __init__(self, cta, maxnreg=None):
        nw = len(cta.warps)
        r0 = maxnreg if maxnreg is not None else ASSUMED["launch_count"](nw)
        self.count = {w.idx: r0 for w in cta.warps}
        self.known = {w.idx: maxnreg is not None for w in cta.warps}
        self.free = ASSUMED["pool"] - 32 * r0 * nw
        self.history = {w.idx: [] for w in cta.warps}
        self.waiting = {}


POOL = Kept("regpool", "cta", _Pool)


def decode_setmaxnreg(d, inst):
    p = inst.parts
    action = next((q for q in p if q in ("inc", "dec")), None)
    extra = [q for q in p[1:] if q not in ("inc", "dec", "sync", "aligned", "u32")]
    if action is None or "sync" not in p or "aligned" not in p or "u32" not in p or extra:
        raise d.error("setmaxnreg takes .inc or .dec, .sync.aligned.u32")
    (op,) = d.operands(1)
    if op[0] != "imm":
        raise d.error("setmaxnreg takes an immediate register count")
    n = op[1]
    if not 24 <= n <= 256 or n % 8:
        raise d.error(f"setmaxnreg register count {n} must be in [24, 256] and a multiple of 8 "
                      f"(PTX ISA)")
    M = d.M
    maxnreg = d.fn.directives.get("maxnreg")
    maxnreg = None if maxnreg is None else min(256, int(maxnreg[0]) // 8 * 8)
    line = inst.line

    def f(w, parts):
        cta = w.cta
        pool = POOL.peek(cta)
        if pool is None:
            pool = cta.ext[POOL] = _Pool(cta, maxnreg)
        me = w.idx
        cur = pool.count[me]
        if action == "inc" and 32 * (n - cur) > pool.free:
            pool.waiting[me] = n
            _check_deadlock(cta, pool)
            for t in parts:  # blocks until enough registers are in the pool: run it again
                t.pc -= 1
            return
        pool.waiting.pop(me, None)
        hist = pool.history[me]
        k = len(hist)
        hist.append((action, n, line))
        wg = me // 4
        members = [x for x in range(4 * wg, 4 * wg + 4) if x in pool.history]
        if len(members) < 4:
            findings.report(M, RULE, f"line {line}: setmaxnreg executed by warpgroup {wg}, which "
                            f"has {len(members)} warps, not 4 (the ISA: all warps of the "
                            f"warpgroup execute it)", line=line)
        for x in members:
            other = pool.history[x]
            if x != me and len(other) > k and other[k][:2] != (action, n):
                # at both instructions: which of the two warps comes second is the schedule's
                # choice, the finding's lines are not (schedule exploration compares them)
                for at in sorted({line, other[k][2]}):
                    findings.report(M, RULE, f"line {at}: warp {me} executes setmaxnreg."
                                    f"{action} {n} (line {line}) where warp {x} of its warpgroup "
                                    f"executed setmaxnreg.{other[k][0]} {other[k][1]} (line "
                                    f"{other[k][2]}): the same setmaxnreg must be executed by "
                                    f"all warps of a warpgroup", line=at)
        if pool.known[me] and ((action == "inc" and n < cur) or (action == "dec" and n > cur)):
            findings.report(M, RULE_COUNT, f"line {line}: setmaxnreg.{action} {n} in warp {me}, which "
                            f"holds {cur} registers per thread: .inc must not lower and .dec "
                            f"must not raise the count", line=line)
        pool.free -= 32 * (n - cur)
        pool.count[me] = n
        pool.known[me] = True
        M.progress += 1
    return f, None


def _check_deadlock(cta, pool):
    """Every warp of the CTA that has not exited waits in .inc: none can free registers."""
    live = [w.idx for w in cta.warps if any(t.state != State.EXITED for t in w.threads)]
    if live and all(x in pool.waiting for x in live):
        asks = ", ".join(f"warp {x}: {pool.count[x]} -> {pool.waiting[x]}" for x in live)
        raise EmulationError(f"deadlock in setmaxnreg.inc: the CTA's register pool has "
                             f"{pool.free} registers free and every live warp waits for more "
                             f"(per-thread counts: {asks})")


findings.RULES.setdefault(RULE, (
    "PTX ISA, setmaxnreg: the same setmaxnreg instruction must be executed by all warps in a "
    "warpgroup; .dec releases registers to and .inc requests registers from the CTA's pool"))
findings.RULES.setdefault(RULE_COUNT, (
    "PTX ISA, setmaxnreg: .dec reduces the per-thread maximum register count from its current "
    "value to imm-reg-count, .inc increases it from its current value"))
