"""Device-function calls: call / ret with .param arguments and return values, local-memory frames
and recursion (PTX ISA "call", "ret", "Parameter State Space" for device functions)::

    call{.uni} (ret-param), func, (param-list);   call{.uni} func, (param-list);
    call{.uni} (ret-param), func;                  call{.uni} func;

Model.  The kernel's code is its entry's instructions followed by those of every function it can
call (:func:`callees`); each function's registers have their own slots, and its parameters,
return parameters, ``.local`` variables and the ``.param`` argument variables it declares for its
own calls live at fixed offsets of the thread's local memory, its *frame* (:func:`layout`).  A call
saves the callee's frame and registers (an outer activation of the callee, in recursion), copies
each argument variable into the callee's parameter, and jumps; ``ret`` copies the return parameter
into the caller's return variable, restores what the call saved and returns after the call (in
the entry, ``ret`` ends the thread).  So every activation sees its own registers and frame; a
pointer into an outer activation's frame of the same function, which PTX allows, would see the
inner activation's bytes instead: such a kernel is not emulated faithfully (docs/emulator.md).
Calls nest at most :data:`MAX_DEPTH` deep (CUDA's default stack would overflow long before).

Refused: indirect calls (through a register, with a prototype) and calls of functions without a
body in the module (``vprintf``, ``malloc``, ``__assertfail``: the CUDA runtime's, not PTX).
"""

from __future__ import annotations

from ..errors import EmulationError
from ..state import Kept
from ..ptx_parser import Function

MAX_DEPTH = 1024
STACK = Kept("calls", "thread", lambda t: [])


def _callee(op):
    return op[1] if op[0] == "sym" and isinstance(op[1], Function) else None


def callees(entry) -> list:
    """The functions ``entry`` can call, directly or through others, in first-call order."""
    out, todo = [], [entry]
    while todo:
        f = todo.pop()
        for inst in f.instructions:
            if inst.parts[0] != "call":
                continue
            for op in inst.operands:
                g = _callee(op)
                if g is not None and g is not entry and g not in out and g.has_body:
                    out.append(g)
                    todo.append(g)
    return out


def layout(M, entry, funcs, off: int) -> int:
    """Give the entry's call-argument variables and each function's frame (parameters, return
    parameters, .local and .param variables) local-memory offsets from ``off``; returns the end.
    ``M.frames``: function -> (first byte, end) of its frame."""
    M.frames = {}

    def place(decl, off):
        off = (off + decl.align - 1) // decl.align * decl.align
        M.symbols[decl] = ("local", off)
        return off + decl.size
    for v in entry.vars:
        if v.space == "param":
            off = place(v, off)
    for f in funcs:
        lo = off
        for d in f.params + f.rets:
            off = place(d, off)
        for v in f.vars:
            if v.space not in ("local", "param"):
                raise EmulationError(f"line {v.line}: a .{v.space} variable inside device "
                                     f"function {f.name} is not emulated by tile-sim")
            off = place(v, off)
        M.frames[f] = (lo, off)
    return off


def decode_call(d, inst):
    ops = inst.operands
    k = next((i for i, o in enumerate(ops) if _callee(o) is not None), None)
    if k is None:
        raise d.error("indirect calls (through a register) are not emulated by tile-sim")
    f = _callee(ops[k])
    if not f.has_body:
        raise d.error(f"`{f.name}` has no body in this module (a CUDA runtime function such as "
                      f"vprintf or malloc): tile-sim cannot call it")
    if k > 1 or len(ops) > k + 2 or any(o[0] != "plist" for i, o in enumerate(ops) if i != k):
        raise d.error("call takes {(ret),} func{, (params)}; a prototype (indirect call) is not "
                      "emulated")
    rets = ops[0][1] if k == 1 else []
    args = ops[k + 1][1] if len(ops) > k + 1 else []
    if len(args) != len(f.params) or len(rets) != len(f.rets):
        raise d.error(f"`{f.name}` takes {len(f.params)} parameter(s) and returns "
                      f"{len(f.rets)}, the call gives {len(args)} and {len(rets)}")
    M = d.M

    def local_of(op, want, what):
        if op[0] != "sym" or M.symbols.get(op[1], (None,))[0] != "local":
            raise d.error(f"call: {what} `{op[1] if op[0] != 'sym' else op[1].name}` is not a "
                          f".param variable")
        off = M.symbols[op[1]][1]
        if op[1].size != want.size:
            raise d.error(f"call: {what} `{op[1].name}` is {op[1].size} bytes, `{f.name}`'s "
                          f"`{want.name}` {want.size}")
        return off
    copies = [(local_of(a, p, "argument"), M.symbols[p][1], p.size) for a, p in zip(args, f.params)]
    back = [(M.symbols[r][1], local_of(o, r, "return variable"), r.size)
            for o, r in zip(rets, f.rets)]
    lo, hi = M.frames[f]
    target = M.func_base[f]

    def call(t):
        slots = M.func_slots[f]  # known once f is decoded (after its callers)
        stack = STACK.of(t)
        if len(stack) >= MAX_DEPTH:
            raise EmulationError(f"call depth exceeds {MAX_DEPTH} (a runaway recursion of "
                                 f"`{f.name}`?)")
        buf = t.local
        r = t.r
        stack.append((t.pc, slots, r[slots[0]:slots[1]], lo, bytes(buf[lo:hi]), back))
        for src, dst, n in copies:
            buf[dst:dst + n] = buf[src:src + n]
        t.pc = target
    return call


def decode_ret(d, inst):
    M = d.M

    def ret(t):
        stack = STACK.peek(t)
        if not stack:
            M.exit_thread(t)
            return
        pc, slots, regs, lo, frame, back = stack.pop()
        buf = t.local
        values = [bytes(buf[src:src + n]) for src, _, n in back]
        t.r[slots[0]:slots[1]] = regs  # the caller's activation back (recursion: the same
        buf[lo:lo + len(frame)] = frame  # function's registers and frame), then its results
        for (_, dst, n), v in zip(back, values):
            buf[dst:dst + n] = v
        t.pc = pc
    return ret
