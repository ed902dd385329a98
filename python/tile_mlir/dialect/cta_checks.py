"""A scoped op against its kernel's CTA: the threads a scope names must exist in the block and run it
as whole groups.

A tile op whose `scope` is `warp` runs as one warp (32 lanes), `warpgroup` as four warps (128 threads,
lanes 0-127 of tensor memory for tmem ops). In a smaller CTA the missing threads do not run their
part: a warpgroup copy in a 32-thread CTA copied a quarter of the tile, a warp copy in 16 threads
half, a warpgroup tile.tmem.load in one warp wrote rows 0-31 only, all without a word.

The same holds for a group cut short inside a larger block. PTX ISA (9.7.15, "warpgroup"): a warpgroup
is four contiguous warps, the first of rank a multiple of 4, and a warpgroup-wide instruction
(wgmma.*, tcgen05.ld/st of a 32x32b lane quarter per warp) is executed by all of its warps; a warp is
32 lanes (threads 32k .. 32k + 31). So a 160-thread block has one whole warpgroup (threads 0-127)
and one of a single warp (128-159), whose part of a warpgroup op runs with three warps missing.

The rule (docs/trust.md, "Scopes"): the threads that may run a scoped op must be whole groups of
its scope. The verifier reads the range of thread ids that reaches the op from the scf.if conditions
around it that compare tile.thread_id, tile.warp_id or thread_id / d (arith.divui by a constant)
against a constant (<, <=, >, >=, ==, either side, and `and` of such); the range, cut to the block,
must start and end on a group boundary. In a block that is whole groups, a condition of any other form
is trusted (it may split threads by data); in a block that ends in an incomplete group, the op must be
guarded by a condition of that form to whole groups. The verifier calls check_scope for every op (one
hook line in verifier.verify_op).
"""
from __future__ import annotations

from .checks import KernelFacts
from .decline import fail
from .enums import Scope
from .op_def import read_attr
from .ranges import constant_value

__all__ = ["SCOPE_THREADS", "check_scope", "thread_range"]

#: threads a scope spans (PTX: a warp is 32 threads, a warpgroup 4 contiguous warps)
SCOPE_THREADS = {Scope.WARP: 32, Scope.WARPGROUP: 128}
_INF = float("inf")
#: cmpi predicate -> the same comparison with its operands swapped
_SWAP = {"ult": "ugt", "ule": "uge", "ugt": "ult", "uge": "ule", "slt": "sgt", "sle": "sge", "sgt": "slt",
         "sge": "sle", "eq": "eq"}
_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def check_scope(op, spec, kernel: KernelFacts) -> None:
    """fail("scope", ...) when `op`'s scope spans more threads than the kernel's block has, or the
    threads that may run it are not whole groups of the scope (after the generic checks: the attribute,
    read through the op's field, is a Scope)."""
    field = next((a for a in spec.attrs if a.name == "scope"), None)
    if kernel.threads is None or field is None:
        return
    scope = read_attr(op, field)
    need = SCOPE_THREADS.get(scope)
    if need is None:
        return
    threads = kernel.threads
    if threads < need:
        fail("scope", f"scope {scope} spans {need} threads (lanes 0-{need - 1}), but the kernel's block has "
                      f"{threads}: the missing threads' part of the op would not run")
    lo, hi = thread_range(op)
    whole = threads % need == 0
    if lo is None:  # a condition the verifier cannot read
        if whole:
            return
        lo, hi = 0, threads
    hi = min(hi, threads)
    if hi <= lo or (lo % need == 0 and hi % need == 0):
        return
    group = lo // need if lo % need else (hi - 1) // need
    first, last = group * need, min(group * need + need, threads) - 1
    where, verb = ("the kernel's block", "includes") if (lo, hi) == (0, threads) else \
        (f"the threads {lo}-{hi - 1} its guard lets through", "include")
    fail("scope", f"scope {scope} spans {need} threads, but {where} {verb} an incomplete {scope} (threads "
                  f"{first}-{last} of group {group}): its missing threads' part of the op would not run; guard the "
                  f"op to whole {scope}s (e.g. scf.if on tile.thread_id < {threads // need * need})")


def thread_range(op) -> tuple[int | None, float]:
    """[lo, hi) of the thread ids that may reach `op`, from the scf.if conditions around it; (None,
    inf) where one of them is of a form this does not read."""
    lo, hi = 0, _INF
    child = op
    parent = _parent(child)
    while parent is not None and _name(parent) != "tile.kernel":
        if _name(parent) == "scf.if":
            r = _condition_range(list(parent.operands)[0])
            if r is not None and not _in_then(parent, child):
                r = _complement(r)
            if r is None:
                return None, _INF
            lo, hi = max(lo, r[0]), min(hi, r[1])
        child, parent = parent, _parent(parent)
    return lo, hi


def _name(op) -> str | None:
    return getattr(getattr(op, "operation", op), "name", None)


def _parent(op):
    try:
        return getattr(op, "operation", op).parent
    except (AttributeError, ValueError):
        return None


def _in_then(if_op, child) -> bool:
    """Whether `child` lies in the then-region of scf.if `if_op` (its block compared: constant time)."""
    try:
        return getattr(child, "operation", child).block.region == if_op.regions[0]
    except (AttributeError, ValueError, IndexError):
        return False


def _complement(r):
    lo, hi = r
    if lo == 0:
        return (hi, _INF)
    if hi == _INF:
        return (0, lo)
    return None


def _measure(value, depth: int = 0):
    """The threads per unit of `value`: 1 for tile.thread_id, 32 for tile.warp_id, d * that for
    value / d (arith.divui by a constant); None otherwise."""
    owner = getattr(value, "owner", None)
    name = _name(owner)
    if name == "tile.thread_id":
        return 1
    if name == "tile.warp_id":
        return 32
    if name == "arith.divui" and depth < 4:
        x, d = list(owner.operands)
        inner, c = _measure(x, depth + 1), constant_value(d)
        return inner * c if inner and c else None
    return None


def _condition_range(cond, depth: int = 0):
    """[lo, hi) of thread ids for which i1 `cond` holds, or None."""
    owner = getattr(cond, "owner", None)
    name = _name(owner)
    if name == "arith.andi" and depth < 8:
        a, b = (_condition_range(v, depth + 1) for v in owner.operands)
        return None if a is None or b is None else (max(a[0], b[0]), min(a[1], b[1]))
    if name != "arith.cmpi":
        return None
    x, y = list(owner.operands)
    try:
        pred = _PREDICATES[owner.attributes["predicate"].value]
    except (KeyError, IndexError, AttributeError):
        return None
    if _measure(x) is None:
        x, y, pred = y, x, _SWAP.get(pred)
    unit, c = _measure(x), constant_value(y)
    if unit is None or c is None or pred is None or c >= 1 << 31:
        return None
    return {"ult": (0, c * unit), "slt": (0, c * unit), "ule": (0, (c + 1) * unit), "sle": (0, (c + 1) * unit),
            "ugt": ((c + 1) * unit, _INF), "sgt": ((c + 1) * unit, _INF), "uge": (c * unit, _INF),
            "sge": (c * unit, _INF), "eq": (c * unit, (c + 1) * unit)}.get(pred)
