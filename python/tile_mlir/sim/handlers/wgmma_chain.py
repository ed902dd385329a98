"""wgmma's D, computed when first read: a K chain, and the warpgroup's warps, in one call.

A wgmma reads its operands at issue (wgmma.py), but its D is read only when an accumulator
register is: at the wgmma.wait_group that retires it while no later wgmma of its chain holds the
registers, or as the C of a wgmma that does not chain onto it.  Until then a :class:`Step` keeps
its operand bits and the step whose D is its C.  When a D is first read, the chain behind it is
one call of ``mma_numerics.wgmma`` over the summed K.  That is exact: the fast path
(``mma_fast.t_fdpa``) rounds once per group of L products along K, every wgmma's K is a multiple
of its L, so one call over the concatenated K runs the very groups, in the same order, that the
wgmmas one after another run -- each MMA still rounds its result.  The other warps of the
warpgroup whose chains of the same length run over the same B go into the same call, their rows
stacked (a D element depends on its row of A and C and on B alone).

Only the fast path's kinds wait (:func:`lazy`); the others, and every wgmma in lenient mode (whose
registers hold their values at once), are computed at issue as before.
"""

from __future__ import annotations

import numpy as np

from .. import mma_numerics, pure_memo
from ..state import Kept


#: False: every wgmma computed at issue, one call per warp (tests compare the two)
ENABLED = True


class Step:
    """One warp's wgmma: ``key`` (dtype, atype, btype, n, k, satfinite), its A rows (negated as
    the instruction says) and B, and either ``prev`` (the step whose D is its C) or ``c0``;
    ``d`` once computed; where it is filed: its CTA's table, warpgroup, warp and ordinal (the
    how-manieth wgmma of its warp)."""
    __slots__ = ("key", "a", "b", "prev", "c0", "d", "spent", "tab", "wg", "warp", "ordinal")

    def __init__(self, key, a, b, prev, c0, tab, wg, warp, ordinal):
        self.key, self.a, self.b, self.prev, self.c0, self.d = key, a, b, prev, c0, None
        self.spent = False  # part of a chain computed past it: no peer's call needs it
        self.tab, self.wg, self.warp, self.ordinal = tab, wg, warp, ordinal


class _Table:
    __slots__ = ("steps", "count")

    def __init__(self, cta):
        self.steps = {}  # (warp index, ordinal) -> its step
        self.count = {}  # warp index -> wgmmas it issued


TABLE = Kept("wgmma_chain", "cta", _Table)


def lazy(M, atype: str) -> bool:
    """Whether a wgmma of ``atype`` may wait for its D (strict mode, a kind of the fast path)."""
    return ENABLED and M.strict and mma_numerics.fast_wgmma(atype)


def new_step(w, key, a, b, prev, c0) -> Step:
    """The step of warp ``w``'s next wgmma, filed by warp and ordinal."""
    tab = TABLE.of(w.cta)
    j = tab.count.get(w.idx, 0)
    tab.count[w.idx] = j + 1
    st = tab.steps[(w.idx, j)] = Step(key, a, b, prev, c0, tab, w.idx // 4, w.idx, j)
    return st


def _chain(s):
    """(steps from the first one not computed to ``s``, the C they start from)."""
    steps = []
    while True:
        if s.d is not None:
            base = s.d
            break
        steps.append(s)
        if s.prev is None:
            base = s.c0
            break
        s = s.prev
    steps.reverse()
    return steps, base


def _peer_prefix(steps, warp):
    """(how many of ``steps`` warp ``warp`` has issued the same of, chained the same way, over the
    same B and not computed; its steps, its C)."""
    get = steps[0].tab.steps.get
    out = []
    prev = None
    for s in steps:
        p = get((warp, s.ordinal))
        if p is None or p.d is not None or p.spent or p.key != s.key or \
                (out and p.prev is not prev) or \
                not (p.b is s.b or np.array_equal(p.b, s.b)):
            break
        if not out and p.prev is not None and p.prev.d is None:
            return 0, [], None  # its chain starts earlier: not the same chain
        out.append(p)
        prev = p
    if not out:
        return 0, [], None
    first = out[0]
    return len(out), out, (first.prev.d if first.prev is not None else first.c0)


def compute(step) -> np.ndarray:
    """``step``'s D (16 x n bits): its chain in one call, the same chain of the warpgroup's other
    warps stacked into it as far as they have issued it (the rest of the chain, if any, then
    continues from the stacked call's D)."""
    if step.d is not None:
        return step.d
    steps, base = _chain(step)
    peers = []
    for wq in range(4 * step.wg, 4 * step.wg + 4):
        if wq != step.warp:
            n, ps, pbase = _peer_prefix(steps, wq)
            if n:
                peers.append((n, ps, pbase))
    # the prefix length that computes the most rows x steps together
    best, upto = len(steps), [p for p in peers if p[0] == len(steps)]
    for n in sorted({p[0] for p in peers}):
        with_n = [p for p in peers if p[0] >= n]
        if n * (1 + len(with_n)) > best * (1 + len(upto)):
            best, upto = n, with_n
    group = [(steps[:best], base)] + [(ps[:best], pbase) for _, ps, pbase in upto]
    dtype, atype, btype, n, k, sat = step.key
    a = np.vstack([np.hstack([s.a for s in st]) if best > 1 else st[0].a for st, _ in group])
    b = np.vstack([s.b for s in steps[:best]]) if best > 1 else steps[0].b
    c = np.vstack([g[1] for g in group]) if len(group) > 1 else base
    d = pure_memo.call(mma_numerics.wgmma, dtype, atype, btype, a, b, c, n=n, k=k * best,
                       saturate=sat)
    rows = a.shape[0] // len(group)
    for i, (st, _) in enumerate(group):
        for x in st:
            x.spent = True
        s = st[-1]
        s.d = d[i * rows:(i + 1) * rows]
        s.a = s.b = s.prev = s.c0 = None  # a computed step is never part of a chain again
    return compute(step)  # done, or the rest of its chain from the prefix's D
