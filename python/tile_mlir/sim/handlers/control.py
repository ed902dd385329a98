"""Control flow: bra, ret, exit, trap (and explicit rejection of call / brx.idx)."""

from __future__ import annotations

from ..errors import EmulationError


def decode_bra(d, inst):
    if len(inst.operands) != 1 or inst.operands[0][0] != "sym":
        raise d.error("bra needs a label operand")
    space, idx = d.sym(inst.operands[0][1])
    if space != "label":
        raise d.error(f"branch target {inst.operands[0][1]} is not a label")

    def f(t):
        t.pc = idx
    return f


def decode_exit(d, inst):
    M = d.M

    def f(t):
        M.exit_thread(t)
    return f


decode_ret = decode_exit


def decode_trap(d, inst):
    def f(t):
        raise EmulationError("trap executed")
    return f


def decode_brkpt(d, inst):
    def f(t):
        raise EmulationError("brkpt executed")
    return f


def decode_unsupported(d, inst):
    raise d.error(f"instruction `{inst.opcode}` is not supported by tile-sim "
                  "(function calls and indirect branches are not emulated)")
