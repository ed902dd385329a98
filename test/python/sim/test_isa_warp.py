"""redux.sync, shfl.sync, vote.sync, match.sync, activemask and elect.sync on tile-sim: every row of
the ISA coverage table registered to this test, run with its own opcode in one warp over several
cases (the whole warp, and lanes 5..19 alone with the member mask naming exactly them), against the
PTX ISA's definitions written out here per lane:

* redux.sync: the reduction over the member lanes (integers wrap; f32 min / max with -0 below +0,
  .abs on the magnitudes, NaN inputs ignored unless .NaN, a NaN result the canonical 0x7FFFFFFF);
* shfl.sync: the ISA's pseudocode (test_warp_collectives.shfl_ref), value and predicate;
* vote.sync .all / .any / .uni over the members' predicates;
* match.any: the members holding the lane's value; match.all: the members if all agree, else 0,
  and the predicate;
* activemask: the lanes executing; elect.sync: the lowest member, predicate true on it only.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from isa_harness import isa_rows
from test_warp_collectives import shfl_ref
from tile_mlir.sim import run_ptx

T = "test/python/sim/test_isa_warp.py::"
SPANS = ((0, 32), (5, 20))  # the active lanes [lo, hi) of a case; the member mask names them
SHFL_BC = ((1, 0x1F), (3, 0x0), (5, 0x1F), (16, 0x1F), (7, 0x181F), (2, 0x1800), (4, 0x1807),
           (1, 0x0))
HEAD = """.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
  .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<16>; .reg .b32 %tid;
  mov.u32 %tid, %tid.x;
  ld.param.u64 %rd10, [pin]; cvta.to.global.u64 %rd10, %rd10;
  ld.param.u64 %rd11, [pout]; cvta.to.global.u64 %rd11, %rd11;
  mul.wide.u32 %rd12, %tid, 4; add.u64 %rd10, %rd10, %rd12; add.u64 %rd11, %rd11, %rd12;
"""


def _f(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _family(op):
    return next(f for f in ("redux", "shfl", "vote", "match", "activemask", "elect")
                if op.startswith(f))


def _cases(op, rng):
    """[(lo, hi, per-lane values, shfl (b, c) or None)] of one row."""
    fam = _family(op)
    if fam == "shfl":
        vals = rng.integers(0, 1 << 32, 32, dtype=np.uint64)
        return [(0, 32, vals, bc) for bc in SHFL_BC]
    if fam == "redux" and op.endswith(".f32"):
        base = (rng.standard_normal(32) * 2.0 ** rng.integers(-8, 8, 32)).astype(np.float32)
        v = base.view(np.uint32).astype(np.uint64)
        zeros = v.copy()
        zeros[::2] = 0x80000000
        zeros[1::2] = 0
        one_nan = v.copy()
        one_nan[11] = 0x7FC00123
        all_nan = np.full(32, 0xFFC00001, np.uint64)
        return [(lo, hi, x, None) for x in (v, zeros, one_nan, all_nan) for lo, hi in SPANS]
    if fam == "redux":
        v = rng.integers(0, 1 << 32, 32, dtype=np.uint64)
        w = v.copy()
        w[7], w[12] = 0x80000000, 0x7FFFFFFF
        return [(lo, hi, x, None) for x in (v, w) for lo, hi in SPANS]
    if fam == "vote":
        pats = [np.ones(32, np.uint64), np.zeros(32, np.uint64),
                rng.integers(0, 2, 32).astype(np.uint64)]
        one = np.zeros(32, np.uint64)
        one[9] = 1
        pats.append(one)
        return [(lo, hi, x, None) for x in pats for lo, hi in SPANS]
    if fam == "match":
        pats = [np.arange(32, dtype=np.uint64) % 3, np.full(32, 0xDEADBEEF, np.uint64),
                rng.integers(0, 4, 32).astype(np.uint64) << np.uint64(30)]
        return [(lo, hi, x, None) for x in pats for lo, hi in SPANS]
    return [(lo, hi, np.zeros(32, np.uint64), None) for lo, hi in SPANS]


def _inst(op, mask, bc):
    fam = _family(op)
    if fam == "redux":
        return f"{op} %r1, %r2, {mask};"
    if fam == "shfl":
        return f"{op} %r1|%p1, %r2, {bc[0]}, {bc[1]}, {mask};"
    if fam == "vote":
        return f"setp.ne.u32 %p2, %r2, 0; {op} %p1, %p2, {mask};"
    if fam == "match":
        return f"{op} %r1|%p1, %r2, {mask};" if ".all" in op else f"{op} %r1, %r2, {mask};"
    if fam == "activemask":
        return f"{op} %r1;"
    return f"{op} %r1|%p1, {mask};"


def _kernel(rows, cases):
    body, k = [], 0
    for r, cs in zip(rows, cases):
        op = r["text"].split(" ")[0]
        for lo, hi, _, bc in cs:
            mask = ((1 << hi) - 1) & ~((1 << lo) - 1)
            body += [f"  setp.lt.u32 %p3, %tid, {lo};", f"  @%p3 bra S{k};",
                     f"  setp.ge.u32 %p3, %tid, {hi};", f"  @%p3 bra S{k};",
                     f"  ld.global.u32 %r2, [%rd10+{k * 128}];",
                     "  mov.u32 %r1, 0; setp.ne.u32 %p1, %r1, 0;",
                     f"  {_inst(op, hex(mask), bc)}",
                     "  selp.u32 %r3, 1, 0, %p1;",
                     f"  st.global.u32 [%rd11+{2 * k * 128}], %r1;",
                     f"  st.global.u32 [%rd11+{(2 * k + 1) * 128}], %r3;",
                     f"S{k}:"]
            k += 1
    return HEAD + "\n".join(body) + "\n  ret;\n}\n", k


def _fredux(op, vals):
    nan = [(v & 0x7FFFFFFF) > 0x7F800000 for v in vals]
    if ".NaN" in op and any(nan):
        return 0x7FFFFFFF
    vs = [v & 0x7FFFFFFF if ".abs" in op else v for v, n in zip(vals, nan) if not n]
    if not vs:
        return 0x7FFFFFFF

    def key(v):  # the order of f32 codes, -0 below +0
        return -(v & 0x7FFFFFFF) - 1 if v >> 31 else v
    return (min if ".min" in op else max)(vs, key=key)


def _reference(op, lo, hi, vals, bc):
    """[(d, p)] per lane (None for a lane that does not run it)."""
    fam = _family(op)
    members = list(range(lo, hi))
    mask = sum(1 << j for j in members)
    mv = [int(vals[j]) & 0xFFFFFFFF for j in members]
    out = [None] * 32
    for lane in members:
        if fam == "redux":
            if op.endswith(".f32"):
                d = _fredux(op, mv)
            else:
                s = op.endswith(".s32")
                key = (lambda v: v - (1 << 32) if s and v >> 31 else v)
                d = {"add": lambda: sum(mv) & 0xFFFFFFFF, "min": lambda: min(mv, key=key),
                     "max": lambda: max(mv, key=key), "and": lambda: _fold(mv, int.__and__),
                     "or": lambda: _fold(mv, int.__or__),
                     "xor": lambda: _fold(mv, int.__xor__)}[op.split(".")[2]]()
            out[lane] = (d, 0)
        elif fam == "shfl":
            mode = op.split(".")[2]
            out[lane] = shfl_ref(mode, [int(v) for v in vals], *bc)[lane]
        elif fam == "vote":
            ps = [v != 0 for v in mv]
            kind = op.split(".")[2]
            p = {"all": all(ps), "any": any(ps), "uni": all(ps) or not any(ps)}[kind]
            out[lane] = (0, int(p))
        elif fam == "match":
            same = sum(1 << j for j in members if int(vals[j]) == int(vals[lane]))
            if ".any" in op:
                out[lane] = (same, 0)
            else:
                agree = same == mask
                out[lane] = (mask if agree else 0, int(agree))
        elif fam == "activemask":
            out[lane] = (mask, 0)
        else:
            out[lane] = (lo, int(lane == lo))
    return out


def _fold(vs, f):
    acc = vs[0]
    for v in vs[1:]:
        acc = f(acc, v)
    return acc


ROWS = isa_rows(T + "test_warp_rows")


def test_warp_rows():
    """Each row's opcode, in every case, gives the ISA's per-lane results."""
    assert ROWS
    rng = np.random.default_rng(2024)
    cases = [_cases(r["text"].split(" ")[0], rng) for r in ROWS]
    ptx, n = _kernel(ROWS, cases)
    inp = np.zeros((n, 32), np.uint32)
    k = 0
    for cs in cases:
        for _, _, vals, _ in cs:
            inp[k] = vals.astype(np.uint32)
            k += 1
    out = np.zeros((2 * n, 32), np.uint32)
    run_ptx(ptx, "k", [inp, out], block=(32, 1, 1), workers=1)
    bad, k = [], 0
    for r, cs in zip(ROWS, cases):
        op = r["text"].split(" ")[0]
        for lo, hi, vals, bc in cs:
            want = _reference(op, lo, hi, vals, bc)
            for lane in range(32):
                got = (int(out[2 * k, lane]), int(out[2 * k + 1, lane]))
                w = want[lane] or (0, 0)
                if op.startswith(("redux", "activemask")) or ".any" in op and "match" in op:
                    got, w = (got[0], 0), (w[0], 0)  # no predicate
                if op.startswith("vote"):
                    got, w = (0, got[1]), (0, w[1])
                if got != w:
                    bad.append(f"{op} lanes [{lo},{hi}) {bc or ''} lane {lane}: {got} != {w}")
            k += 1
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:16])
