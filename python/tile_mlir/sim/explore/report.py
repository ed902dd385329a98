"""What a deadlock found under exploration is waiting for: every blocked warp, the barrier it waits
on (an mbarrier's address, phase, arrivals against its expected count and transaction bytes
outstanding; a named barrier's id, thread count and threads arrived), and the warps that could
have released it (for an mbarrier, the warps seen arriving on it in this run; for a named
barrier, the live warps that have not arrived)."""

from __future__ import annotations

import re

from ..handlers.sync import BARS
from ..state import BLOCKED_AFTER, STATE_NAMES, State
from ..scheduler import _ranges as r


def _warps(pairs) -> str:
    return ", ".join(f"CTA {c} warp {w}" for c, w in sorted(pairs)) or "none"


def deadlock(M, cl, arrivers) -> str:
    """The report of the cluster ``cl`` of machine ``M`` stuck at a deadlock."""
    out = []
    groups: dict = {}
    for c in cl.ctas:
        for t in c.threads:
            if t.state == State.EXITED:
                continue
            pc = t.pc - 1 if t.state in BLOCKED_AFTER else t.pc
            groups.setdefault((c.idx, t.warp.idx, pc, t.state), []).append(t)
    live = {(c.idx, w.idx) for c in cl.ctas for w in c.warps
            if any(t.state != State.EXITED for t in w.threads)}
    for (ci, wi, pc, st), ts in sorted(groups.items(), key=lambda kv: kv[0][:3]):
        inst = M.code[pc] if pc < len(M.code) else None
        where = f"line {inst.line} `{inst.text}`" if inst is not None else "past the end"
        if inst is not None and inst.loc is not None:
            where = f"{inst.loc} ({where})"
        lanes = _ranges([t.lane for t in ts])
        head = f"  CTA {ci} warp {wi} lanes {lanes}: {STATE_NAMES[st]} at {where}"
        t0 = ts[0]
        if st == State.MBAR and t0.wait_on is not None:
            mb = t0.wait_on[0]
            head += (f"\n    waits on the mbarrier at shared 0x{mb.off:x} of CTA {mb.cta.idx}: "
                     f"phase {mb.completed} (parity {mb.completed & 1}) incomplete, "
                     f"{mb.expected - mb.pending} of {mb.expected} arrivals, "
                     f"{mb.tx} transaction bytes outstanding"
                     f"\n    could release it: {_warps(arrivers.get(mb.uid, ()))} (arrived on it "
                     f"in this run)")
        elif st == State.BAR:
            for bid, (arr, cnt, _, waiting) in (BARS.peek(t0.cta) or {}).items():
                if t0 in waiting:  # (not a barrier it only arrived on)
                    came = {(a.cta.idx, a.warp.idx) for a in arr}
                    want = cnt if cnt is not None else "all live"
                    head += (f"\n    waits on named barrier {bid}: {len(arr)} of {want} threads "
                             f"arrived (warps {_warps(came)})"
                             f"\n    could release it: {_warps(live - came)} (live, not arrived); "
                             f"barrier {bid} is used at {bar_uses(M.code, bid)}")
                    break
        out.append(head)
    return "every live warp is blocked\n" + "\n".join(out)


_BAR = re.compile(r"^(?:@!?%\w+\s+)?(?:bar|barrier)(?:\.[\w:]+)*\s+(\d+)\s*(?:,\s*(\d+))?\s*;?$")


def bar_uses(code, bid) -> str:
    """The PTX lines that use named barrier ``bid`` with an immediate id, with their counts."""
    uses = []
    for i in code:
        m = _BAR.match(i.text.strip())
        if m and int(m.group(1)) == bid:
            uses.append(f"line {i.line} (count {m.group(2) or 'all'})")
    return ", ".join(uses) or "no line with an immediate id"


def _ranges(lanes) -> str:
    return r(lanes)
