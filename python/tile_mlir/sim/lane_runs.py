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


def run(M, lanes, pc, k):
    """Execute instructions pc .. pc+k-1 for ``lanes`` (all at ``pc``, the warp's only runnable
    lanes below pc+k); their PCs end at pc+k."""
    loops = M._lane_loops
    code = M.code
    vec = M._vec_len
    j, end, scalar_to = pc, pc + k, pc
    try:
        while j < end:
            if j >= scalar_to and vec is not None and vec[j] >= lane_vec.MIN_LEN:
                m = min(vec[j], end - j)
                done = lane_vec.run(M, lanes, j, m)  # (its stretch as vectors, lane_vec.py)
                j += done
                if done == m:
                    continue
                scalar_to = j + m - done  # declined or faulted: the rest of the stretch per lane
            f = loops[j]
            if f is None:
                f = loops[j] = _loop(M, code[j])
            f(lanes)
            j += 1
    except EmulationError as e:
        t = getattr(e, "lane", None)
        done = lanes.index(t) + 1 if t in lanes else 0
        for u in lanes[:done]:  # as the scheduler leaves them: PC past the faulting one
            u.pc = j + 1
        for u in lanes[done:]:
            u.pc = j
        raise M._locate(e, code[j], t) from None
    end = pc + k
    for u in lanes:
        u.pc = end
