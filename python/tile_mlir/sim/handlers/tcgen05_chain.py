"""The tcgen05.mma a commit retires onto one D, computed in one call.

A commit retires its thread's pending operations in issue order (tcgen05_async.retire_pending):
each MMA reads its C from tensor memory -- the D the MMA before it just wrote -- and writes its D.
A run of MMAs on the same D cells, of one kind, shape and types, A and B from shared memory (read
at issue), each after the first accumulating (enable-input-d, no scale-input-d) and none with
disabled lanes, whose scale factors lie outside D's columns, is the chain that
``mma_numerics.tcgen05_chain`` computes in one call over the summed K: exact for the kinds where
the fast path rounds once per group of L products along K and one MMA's K is one group or more
(``tcgen05_fusable``): every MMA still rounds its result.  Its tensor-memory reads happen in the
order of the MMAs one after another (C once, as only the first can find cells never written; each
MMA's scale factors), so warnings and errors are theirs; the intermediate Ds, which the next MMA
of the run overwrites before anything can read them, are not written.
"""

from __future__ import annotations

import numpy as np

from .. import mma_numerics, pure_memo

#: False: every MMA computed on its own (tests compare the two)
ENABLED = True


class Link:
    """What one MMA brings to a chain: ``key`` (what the MMAs of a run share), whether it may
    follow another (``follows``), its operands per CTA (``a``, ``b``: K x N), ``read_c(r)`` /
    ``read_sf(r)`` (its C and scale factors in CTA r's tensor memory, as it reads them) and the
    arguments of the call (``args``: kind, dtype, atype, btype; ``kw``)."""
    __slots__ = ("key", "follows", "ctas", "lanes", "cols", "a", "b", "read_c", "read_sf", "args",
                 "kw")

    def __init__(self, key, follows, ctas, lanes, cols, a, b, read_c, read_sf, args, kw):
        self.key, self.follows, self.ctas, self.lanes, self.cols = key, follows, ctas, lanes, cols
        self.a, self.b, self.read_c, self.read_sf, self.args, self.kw = a, b, read_c, read_sf, \
            args, kw

    def joins(self, other) -> bool:
        """Whether MMA ``other``, retired right after this one, continues its chain."""
        return ENABLED and other is not None and other.follows and other.key == self.key


def link(s, kind, dt, at, bt, k, idesc, d_taddr, ctas, lanes, cols, a_smem, b, enable, disabled,
         read_c, read_sf, sf_spans):
    """The Link of an MMA, or None when it cannot be part of a chain.  ``sf_spans``: the (first,
    end) tensor-memory columns its scale factors may occupy, in every CTA."""
    block = k // s.nsf if s.block_scale else None
    stype = ("ue8m0" if idesc.scale_type else "ue4m3") if s.block_scale else None
    if any(a is None for a in a_smem) or disabled is not None or \
            not mma_numerics.tcgen05_fusable(kind, dt, at, k, block, stype, s.block_scale):
        return None
    for r in range(len(ctas)):
        lo, hi = int(cols[r].min()), int(cols[r].max()) + 1
        if any(c0 < hi and lo < c1 for c0, c1 in sf_spans):
            return None  # scale factors under D: the run's writes would change them
    key = (tuple(id(c) for c in ctas), d_taddr, idesc.m, idesc.n, s.cg, kind, dt, at, bt, k,
           bool(idesc.negate_a), bool(idesc.negate_b), block, stype)
    follows = bool(enable) and not s.scale_d_imm
    kw = dict(negate_a=bool(idesc.negate_a), negate_b=bool(idesc.negate_b),
              scale_d=s.scale_d_imm if enable else 0)
    return Link(key, follows, ctas, lanes, cols, a_smem, b, read_c, read_sf, (kind, dt, at, bt),
                kw)


def run(links):
    """The tensor-memory writes of a run of MMAs (the first's Link first): the last one's D."""
    first = links[0]
    ctas = first.ctas
    cins, sfs = [None] * len(ctas), [[None] * len(ctas) for _ in links]
    for i, ln in enumerate(links):  # the reads in the order the MMAs one by one do them
        for r in range(len(ctas)):
            if i == 0:
                cins[r] = first.read_c(r)
            sfs[i][r] = ln.read_sf(r)
    b = np.vstack([ln.b for ln in links])
    writes = []
    for r, c in enumerate(ctas):
        a = np.hstack([ln.a[r] for ln in links])
        sf = {}
        if sfs[0][r]:
            sf = dict(sfa=np.hstack([x[r]["sfa"] for x in sfs]),
                      sfb=np.vstack([x[r]["sfb"] for x in sfs]))
        dres = pure_memo.call(mma_numerics.tcgen05_chain, *first.args, a, b, cins[r][1],
                              **first.kw, **sf)
        writes.append((c, first.lanes[r], first.cols[r], dres.astype(np.uint32)))  # (rows x N each)
    return writes
