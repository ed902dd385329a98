"""Which ``mul`` / ``add`` pairs the assembler fuses into one ``fma``.

The PTX ISA lets the code generator contract a ``mul`` and an ``add`` / ``sub`` that carry no
rounding modifier into a fused multiply-add ("mul/add sequences with no rounding modifiers may be
optimized to use fused-multiply-add instructions on the target device": the ``add``, ``sub`` and
``mul`` sections of the floating-point chapter), and ptxas does so by default (``--fmad=true``). The
two results differ in the last place, so a kernel whose PTX spells ``mul.f32`` then ``sub.f32`` runs
on the GPU as one rounding, not two. tile-sim follows the assembler: this module finds the pairs it
fuses, the arithmetic handler (handlers/fparith.py) runs each such ``add`` / ``sub`` as the ``fma``,
reading the product's sources there, and a ``mul`` whose every reader is fused as nothing (ptxas drops
its FMUL: its sources are read once per FFMA, which the tcgen05.ld-before-wait counts see).

The rule is the ISA's permission narrowed to what ptxas was measured to do (docs/emulator.md,
Table A row A53; the H100's outputs of the foreign corpus's attention kernels, whose cubins fuse
exactly these pairs): a ``mul`` and an ``add`` / ``sub`` of one floating-point type (f32 or f64),
neither with a rounding modifier, ``.sat`` or a guard, the same ``.ftz``, where the ``mul``'s
destination register is written once and read only as one operand of such sums (each of them fused:
ptxas fuses a product feeding several sums into each, and fuses none when anything else reads it). ``TILE_MLIR_SIM_FMAD=0`` turns contraction off (ptxas ``--fmad=false``).
"""
from __future__ import annotations

ROUNDING = {"rn", "rz", "rm", "rp"}
TYPES = {"f32", "f64"}


def _regs(op):
    """The register keys an operand tuple names (ptx_parser's operand forms), nested ones too."""
    k = op[0]
    if k == "reg":
        yield op[1].key
    elif k in ("not", "addr", "tensor", "pair", "vec"):
        for x in op[1:]:
            if isinstance(x, tuple):
                yield from _regs(x)
            elif isinstance(x, list):
                for y in x:
                    yield from _regs(y)


def _free(inst, ops: str) -> bool:
    """A ``mul`` / ``add`` / ``sub`` the ISA lets the assembler contract: no rounding modifier,
    no .sat, no guard, a scalar f32 / f64 type."""
    p = inst.parts
    return (p[0] in ops and inst.guard is None and p[-1] in TYPES and not ROUNDING & set(p)
            and "sat" not in p and len(inst.operands) == 3)


def plan(instructions) -> tuple[dict, set]:
    """(``id(add instruction) -> (mul instruction, operand position 1 or 2)`` for each fused pair, the
    ids of the muls every reader of which is fused: they run as nothing, as the FMUL that ptxas drops)."""
    defs: dict = {}  # register -> the indices of the instructions that write it
    users: dict = {}  # register -> the instructions that read it
    for inst in instructions:
        for i, op in enumerate(inst.operands):
            written = i == 0 and op[0] in ("reg", "vec", "pair")
            for key in _regs(op):
                if written:
                    defs.setdefault(key, []).append(inst.index)
                else:
                    users.setdefault(key, []).append(inst)
    muls = {}
    for inst in instructions:
        if _free(inst, ("mul",)) and inst.operands[0][0] == "reg":
            key = inst.operands[0][1].key
            if len(defs.get(key, ())) == 1 and users.get(key) and \
                    all(_sum_of(u, key, inst, defs) for u in users[key]):
                muls[key] = inst
    out = {}
    for inst in instructions:
        if not _free(inst, ("add", "sub")):
            continue
        cands = []
        for pos in (1, 2):
            op = inst.operands[pos]
            mul = muls.get(op[1].key) if op[0] == "reg" else None
            if mul is not None:
                cands.append((len(users[op[1].key]), pos, mul))
        if cands:  # of two products, the one with fewer uses
            _, pos, mul = min(cands, key=lambda c: (c[0], c[1]))
            out[id(inst)] = (mul, pos)
    dead = {id(m) for key, m in muls.items() if all(out.get(id(u), (None,))[0] is m for u in users[key])}
    return out, dead


def _sum_of(user, key, mul, defs) -> bool:
    """Whether `user` reads the product `key` only as one operand of a sum the assembler may fuse with
    `mul` (after it, same type and .ftz, the mul's sources written nowhere between the two, so that the sum
    reads what the mul read). A product read by anything else (a shuffle, a store, a conversion) is
    computed as such, and ptxas then leaves its sums apart too (measured: FMUL then FADD)."""
    if not _free(user, ("add", "sub")) or user.parts[1:] != mul.parts[1:] or user.index <= mul.index:
        return False
    for op in mul.operands[1:]:
        for src in _regs(op):
            if any(mul.index <= i <= user.index for i in defs.get(src, ())):
                return False
    hits = [op for op in user.operands[1:] if op[0] == "reg" and op[1].key == key]
    return len(hits) == 1
