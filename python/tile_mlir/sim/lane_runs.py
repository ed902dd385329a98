"""Lane runs: straight-line instructions executed for a warp's converged lanes in one step each.

The scheduler (scheduler.py) executes the instruction at a warp's lowest PC for every runnable lane
there, then looks for the lowest PC again.  For a stretch of *register and memory* instructions
(ALU, mov, cvt, ld, st: :data:`RUNNABLE`) that can neither branch, block, wake another thread nor
read a program counter, the answer is known in advance: the same lanes, one PC further.  So the
scheduler hands such a stretch to :func:`run`, which executes it instruction by instruction, each
over the lanes in the order the scheduler would take them -- the same operations in the same order,
so every register, byte, finding and warning is the one the scheduler gives.  What it saves is the
scheduler's per-thread work: the lowest-PC scan, the state and PC tests and stores, and the call
of the instruction's closure, whose body is inlined into a loop over the lanes (:func:`_loop`).

A stretch stops where another runnable lane of the warp waits (it joins there, as the scheduler
would merge it), at the warp's slice budget (warps interleave exactly as before) and at the first
instruction outside :data:`RUNNABLE`.  A fault inside it is located as the scheduler locates it: at
the faulting instruction and lane, the lanes' PCs as the scheduler leaves them.  ``ENABLED = False``
turns lane runs off (the tests compare both).
"""

from __future__ import annotations

import re

from . import lane_vec
from .codegen import compiled
from .errors import EmulationError
from .state import State

RUN = State.RUN

_RETURN = re.compile(r"\s*return\b")

#: False: the scheduler executes every instruction per thread (tests compare the two)
ENABLED = True

#: thread-scope mnemonics that touch only their thread's registers and memory: no branch, no
#: blocking or waking (mbarrier, barriers, TMA/cp.async completion, tcgen05.commit), no PC read
#: (activemask)
RUNNABLE = frozenset({
    "add", "sub", "mul", "mul24", "mad", "fma", "div", "rem", "min", "max", "neg", "abs", "and",
    "or", "xor", "not", "cnot", "shl", "shr", "bfe", "bfi", "prmt", "popc", "clz", "brev", "bfind",
    "lop3", "setp", "set", "selp", "slct", "mov", "cvt", "cvta", "ld", "ldu", "st", "mapa",
    "getctarank", "isspacep", "prefetch", "prefetchu", "applypriority", "discard", "createpolicy",
    "fence", "membar", "tcgen05.fence::before_thread_sync", "tcgen05.fence::after_thread_sync",
    "sqrt", "rcp", "copysign", "testp", "addc", "subc", "madc", "mad24", "sad", "dp4a", "dp2a",
    "bmsk", "szext", "fns", "shf",
    "ex2.approx", "lg2.approx", "rcp.approx", "rsqrt.approx", "sqrt.approx", "sin.approx",
    "cos.approx", "tanh.approx"})


def lengths(code) -> list[int]:
    """For each PC, how many instructions from it on are lane-runnable (0: none)."""
    out = [0] * (len(code) + 1)
    for pc in range(len(code) - 1, -1, -1):
        i = code[pc]
        out[pc] = out[pc + 1] + 1 if (not i.warp and i.mnemonic in RUNNABLE) else 0
    return out[:-1]


def _loop(M, inst):
    """``f(lanes)``: ``inst`` executed for each lane in order, as the scheduler executes it (its
    guard tested per lane), the closure's body inlined when its source is known; a fault carries
    the lane (``e.lane``)."""
    fn = inst.fn
    body = getattr(fn, "body", None)
    if body is not None and any(_RETURN.match(ln) for ln in body):
        body = None  # a closure that returns early: called, not inlined
    g = inst.guard
    lines = ["_M.cur = _I", "t = None", "try:", "    for t in _lanes_:"]
    ind = "        "
    if body is not None:
        lines.append(ind + "r = t.r")
    if g is not None:
        lines.append(ind + f"if (t.r[{g[0]}] != 0) != {g[1]}:")
        ind += "    "
    lines += [ind + ln for ln in body] if body is not None else [ind + "_fn(t)"]
    lines += ["except _E as e:", "    e.lane = t", "    raise"]
    src = "def _l(_lanes_):\n" + "\n".join("    " + ln for ln in lines) + "\n"
    ns = dict(fn.__globals__) if body is not None else {}
    ns.update(_M=M, _I=inst, _fn=fn, _E=EmulationError)
    exec(compiled(src, f"<ptx line {inst.line} lanes>"), ns)
    return ns["_l"]


def run(M, lanes, pc, k, span=None, w=None):
    """Execute instructions pc .. pc+k-1 for ``lanes`` (all at ``pc``, the warp's only runnable
    lanes below pc+k); their PCs end at pc+k.

    ``span`` >= k: how far the run would go without the warp's slice budget. A vector stretch
    (lane_vec.py) that the budget cuts is computed whole, to pc+span at most: the lanes' registers
    then hold the values of instructions they have not reached, which nothing can read in between
    (the instructions are register-only, and a warp's registers are its own), and ``M._ahead[w]``
    = (stop, lanes) says so; those lanes pass the rest of the stretch without executing it again
    (here and in the scheduler's per-thread step, :func:`step_ahead`), while any other lane that
    reaches it executes it. Steps, PCs and the warps' interleaving are the scheduler's."""
    code = M.code
    end = pc + k
    j = pc
    try:
        ahead = M._ahead.get(w) if M._ahead else None
        if ahead is not None and pc < ahead[0]:
            stop, done = ahead
            j = min(stop, end)
            rest = [t for t in lanes if t not in done]
            if rest:
                _range(M, rest, pc, j, j, None)
        j = _range(M, lanes, j, end, pc + (span or k), w)
    except EmulationError as e:
        j = getattr(e, "pc", j)
        t = getattr(e, "lane", None)
        done = lanes.index(t) + 1 if t in lanes else 0
        for u in lanes[:done]:  # as the scheduler leaves them: PC past the faulting one
            u.pc = j + 1
        for u in lanes[done:]:
            u.pc = j
        raise M._locate(e, code[j], t) from None
    for u in lanes:
        u.pc = end
    ahead = M._ahead.get(w) if M._ahead else None
    if ahead is not None and end >= ahead[0]:
        del M._ahead[w]


def _range(M, lanes, j, end, span_end, w):
    """Instructions j .. end-1 for ``lanes``: vector stretches (lane_vec.py) where they are long enough,
    the per-lane loops elsewhere; a vector stretch past ``end`` (to span_end at most) is computed whole
    and recorded as ahead of the lanes (w given). A fault carries its PC (``e.pc``)."""
    loops = M._lane_loops
    code = M.code
    vec = M._vec_len
    scalar_to = j
    try:
        while j < end:
            if j >= scalar_to and vec is not None and vec[j] >= lane_vec.MIN_LEN:
                m = min(vec[j], (span_end if w is not None else end) - j)
                done = lane_vec.run(M, lanes, j, m)  # (its stretch as vectors, lane_vec.py)
                if done == m:
                    if j + m > end:
                        M._ahead[w] = (j + m, set(lanes))
                        return end
                    j += m
                    continue
                scalar_to = j + m  # declined: the stretch per lane
            f = loops[j]
            if f is None:
                f = loops[j] = _loop(M, code[j])
            f(lanes)
            j += 1
    except EmulationError as e:
        e.pc = j
        raise
    return end


def step_ahead(M, w, threads, pc, inst) -> None:
    """The scheduler's per-thread step at ``pc``, inside a stretch computed ahead for some lanes
    (:func:`run`): those pass it, the others execute it."""
    stop, done = M._ahead[w]
    nxt = pc + 1
    g = inst.guard
    if nxt >= stop:
        del M._ahead[w]
    for t in threads:
        if t.state == RUN and t.pc == pc:
            t.pc = nxt
            if t not in done and (g is None or (t.r[g[0]] != 0) != g[1]):
                try:
                    inst.fn(t)
                except EmulationError as e:
                    raise M._locate(e, inst, t) from None
