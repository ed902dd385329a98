"""Where an output byte that differs between a schedule and the default one was written: the
launch runs again under each of the two (the failing schedule, then the default) with a watch on
that byte's global address, and the report names the last instruction that wrote it in each --
its tile IR line (``path:line:col`` when the PTX carries line info), its PTX line and text -- and
the byte's two values.  A race on plain memory that tile-sim's checks do not see shows only as
such a difference; this names the store that published the wrong value (the missing ordering is
upstream of it: the values it read).  An asynchronous store delivered later by the policy is
named by the instruction that issued it."""

from __future__ import annotations

import copy

import numpy as np

from ..build import build_machine
from ..errors import EmulationError

#: state spaces a copy names, destination first (PTX ISA: cp.async.bulk{.dst}{.src})
_SPACES = ("global", "shared::cluster", "shared::cta", "shared")


def writes_global(inst) -> bool:
    """Whether the instruction may write global memory (a store, reduction, atomic, or a copy
    whose destination is global)."""
    m = inst.mnemonic
    if m.startswith(("st", "red", "atom", "multimem")):
        return True
    if m.startswith("cp"):
        parts = inst.text.split()[0].split(".") if inst.text else []
        if parts and parts[0].startswith("@"):
            parts = inst.text.split()[1].split(".")
        spaces = [p for p in parts if p in _SPACES]
        return bool(spaces) and spaces[0] == "global"
    return False


def last_writer(ptx, kernel, args, kw, pol, which: int, byte: int):
    """(the instruction that last wrote byte ``byte`` of the ``which``-th array argument in a run
    under ``pol`` (None: the default schedule) or None, the byte's value after the run)."""
    a = copy.deepcopy(args)
    kw = dict(kw)
    clusters = kw.pop("clusters")
    m = build_machine(ptx, kernel, a, **kw)
    target = [x for x in a if isinstance(x, np.ndarray)][which]
    base = next(b for arr, b in m.bound_arrays if arr is target)
    addr = base + byte
    g = m.gmem
    find = g.find
    hits = []

    def watched(at, n):  # every global access goes through find (read, write, copies)
        out = find(at, n)
        if at <= addr < at + n:
            item = getattr(pol, "delivering", None)
            hits.append(_by_line(m.code, item[4]) if item is not None else m.cur)
        return out

    g.find = watched
    m.policy = pol
    try:
        m.run(clusters=clusters)
    except EmulationError:
        pass
    finally:
        del g.find  # the class's method again
    buf, off = g.find(addr, 1)
    writers = [i for i in hits if i is not None and writes_global(i)]
    return (writers[-1] if writers else None), buf[off]


def _by_line(code, line):
    return next((i for i in code if i.line == line), None)


def describe(inst) -> str:
    if inst is None:
        return "no instruction (the launch's initial bytes)"
    where = f"PTX line {inst.line} `{inst.text}`"
    return f"{inst.loc} ({where})" if inst.loc is not None else where


def output_report(ptx, kernel, args, kw, pol, which: int, byte: int) -> str:
    """The lines that wrote the differing byte under the schedule and under the default one."""
    try:
        here, v = last_writer(ptx, kernel, args, kw, pol, which, byte)
        ref, w = last_writer(ptx, kernel, args, kw, None, which, byte)
    except Exception as e:  # noqa: BLE001 - the report stays without its lines, and says why
        return f"\n  (where it was written is unknown: {type(e).__name__}: {e})"
    return (f"\n  byte {byte}: 0x{v:02x} under this schedule, written last at {describe(here)}"
            f"\n  0x{w:02x} under the default schedule, written last at {describe(ref)}")
