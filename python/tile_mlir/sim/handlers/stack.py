"""alloca, stacksave, stackrestore: memory allocated on the thread's stack (PTX ISA "Stack
Manipulation Instructions")::

    alloca.type ptr, size{, immAlign};   stacksave.type d;   stackrestore.type a;
    .type = .u32, .u64

``alloca`` returns the ``.local`` address of ``size`` bytes aligned to ``immAlign`` (a power of
two, default 8); ``stacksave`` gives the stack pointer and ``stackrestore`` sets it back, releasing
every allocation made since.  Model: the thread's stack lies after its static local memory (the
entry's ``.local`` variables and the device functions' frames, sim/handlers/calls.py) and grows up
from there; the stack pointer is the local offset of its end.  An allocation is not released when
the function that made it returns, only by ``stackrestore`` (docs/emulator.md §12.9, W17).
"""

from __future__ import annotations

from .. import launch
from ..errors import EmulationError
from ..state import Kept

SP = Kept("stack", "thread", lambda t: [None])  # [stack pointer], None: at its base


def _type(d, inst):
    ty = inst.parts[-1]
    if len(inst.parts) != 2 or ty not in ("u32", "u64"):
        raise d.error(f"{inst.parts[0]} takes .u32 or .u64")
    return 32 if ty == "u32" else 64


def _sp(M, t):
    s = SP.of(t)
    if s[0] is None:
        s[0] = M.local_size
    return s


def decode_alloca(d, inst):
    bits = _type(d, inst)
    ops = d.operands(2, 3)
    align = 8
    if len(ops) == 3:
        if ops[2][0] != "imm" or ops[2][1] <= 0 or ops[2][1] & (ops[2][1] - 1):
            raise d.error("alloca: immAlign must be an immediate power of two")
        align = ops[2][1]
    size = d.compile([f"return {d.src(ops[1], bits)}"])
    slot = d.slot(ops[0])
    M, m = d.M, (1 << bits) - 1

    def f(t):
        s = _sp(M, t)
        off = (s[0] + align - 1) // align * align
        end = off + size(t)
        if end > launch.MAX_LOCAL_PER_THREAD:
            raise EmulationError(f"alloca of {end - off} bytes: the thread's local memory would "
                                 f"reach {end} bytes, over the {launch.MAX_LOCAL_PER_THREAD}-byte "
                                 f"limit")
        if t.local is None:
            t.local = bytearray()
        if len(t.local) < end:
            t.local.extend(bytes(end - len(t.local)))
        s[0] = end
        t.r[slot] = off & m
    return f


def decode_stacksave(d, inst):
    bits = _type(d, inst)
    slot = d.slot(d.operands(1)[0])
    M, m = d.M, (1 << bits) - 1

    def f(t):
        t.r[slot] = _sp(M, t)[0] & m
    return f


def decode_stackrestore(d, inst):
    bits = _type(d, inst)
    get = d.compile([f"return {d.src(d.operands(1)[0], bits)}"])
    M = d.M

    def f(t):
        s = _sp(M, t)
        a = get(t)
        if not M.local_size <= a <= s[0]:
            raise EmulationError(f"stackrestore to {a}: not a stack pointer of this thread's "
                                 f"stack [{M.local_size}, {s[0]}] (a value stacksave gave)")
        s[0] = a
    return f
