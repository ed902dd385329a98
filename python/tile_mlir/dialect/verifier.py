"""The tile verifier (pass `tile-verify`, first in every pipeline).

It checks what ODS would for a registered dialect: operands, results and attributes against the op
class's fields (buffer types and layouts well formed, scopes, enum values), then the class's own
verify() (regions in bounds, tensor memory allocation sizes, ...), then one cta_group for the tcgen05 ops of a kernel (by
trait), and where tile ops may be placed. Every failure is one error diagnostic at the op's location,
written `'tile.<op>' op <check>: <reason>` so tests and users can see which check failed.
Beyond the tile ops: in a kernel every operand must be defined before its use (dominance.py: MLIR
does not check the region of an unregistered op), and no other op may take or make tile buffers,
which only the tile lowerings understand (a misspelt `"tiel.copy_async"` gets a did-you-mean).
"""
from __future__ import annotations

import enum
import math

from ..diagnostics import error
from .checks import KernelFacts, buffer_type, check_buffer_once, same_cta_group
from .decline import Decline, fail
from .cta_checks import check_scope
from .dominance import defined_inside, undominated_uses
from .ir_utils import enclosing_kernel, iter_ops, op_name, takes_tile_buffers
from .op_def import BufferOf, OperandSpec, Trait
from .ops import OP_SPECS, KernelOp, nearest_tile_op, read_attr, read_attr_in, spec_of
from .target_checks import check_target
from .types import is_tile_type

__all__ = ["verify_module"]

_ATTR_NAMES = {s.full_name: frozenset(a.name for a in s.attrs) for s in OP_SPECS}
# the cta_group attribute of each tcgen05 op that has one (copy_async: its verifier decides, by destination)
_CTA_GROUP = {s.full_name: a for s in OP_SPECS if Trait.TCGEN05 in s.traits for a in s.attrs if a.name == "cta_group"}
_CLUSTER = KernelOp.cluster.spec()
_BLOCK = KernelOp.block.spec()


def _check_operand(v, o: OperandSpec, idx: int) -> None:
    what = f"operand #{idx} ({o.name})"
    c = o.constraint
    if type(c) is BufferOf:
        bt = buffer_type(v, what)
        if bt.scope not in c.scopes:
            fail("operand-scope", f"{what} must be a {c.describe()} buffer, got a {bt.scope} buffer")
        check_buffer_once(bt, what)
    elif str(v.type) != c.spelling:
        fail("operand-type", f"{what} must be {c.spelling}, got {v.type}")


def _check_generic(op, spec) -> None:
    operands, results = op.operands, op.results
    n_operands = len(operands)
    variadic = bool(spec.operands) and spec.operands[-1].variadic  # (a variadic operand comes last)
    n_fixed = len(spec.operands) - variadic
    n_required = sum(not o.optional for o in spec.operands[:n_fixed])  # (optional operands come last)
    if n_operands < n_required or (not variadic and n_operands > n_fixed):
        count = (f"{n_required} or more" if variadic else str(n_required) if n_required == n_fixed
                 else f"{n_required} to {n_fixed}")
        fail("operands", f"expects {count} operand(s) "
             f"({', '.join(o.name for o in spec.operands) or 'none'}), got {n_operands}")
    for i, v in enumerate(operands):
        _check_operand(v, spec.operands[min(i, n_fixed)] if variadic else spec.operands[i], i)
    if len(results) != len(spec.results):
        fail("results", f"expects {len(spec.results)} result(s), got {len(results)}")
    for i, (r, o) in enumerate(zip(results, spec.results)):
        c = o.constraint
        if type(c) is not BufferOf:
            if str(r.type) != c.spelling:
                fail("result-type", f"result #{i} must be {c.spelling}, got {r.type}")
        else:
            bt = buffer_type(r, f"result #{i}")
            if bt.scope not in c.scopes:
                fail("result-scope", f"result #{i} must be a {c.describe()} buffer, got a {bt.scope} buffer")
            check_buffer_once(bt, f"result #{i}")
    if len(op.regions) != spec.regions:
        fail("regions", f"expects {spec.regions} region(s), got {len(op.regions)}")
    attrs = op.attributes
    known = _ATTR_NAMES[spec.full_name]
    for name in attrs:
        if name not in known:
            fail("attributes", f"unknown attribute '{name}' (allowed: {', '.join(sorted(known)) or 'none'})")
    for a in spec.attrs:
        if a.name not in attrs:
            if a.required:
                fail("attributes", f"requires attribute '{a.name}'")
            continue
        value = read_attr_in(attrs, a)  # (checks its kind)
        if a.choices and value not in a.choices:  # (an enum value outside the op's choices, or no member)
            shown = value.value if isinstance(value, enum.Enum) else value
            fail("attributes", f"attribute '{a.name}' must be one of {', '.join(map(str, a.choices))}, "
                 f"got {shown!r}")


def verify_op(op, kernel: KernelFacts, arch=None) -> bool:
    spec = spec_of(op.name)
    if spec is None:
        error(op, f"unknown tile operation '{op.name}' (known: {', '.join(s.full_name for s in OP_SPECS)})")
        return False
    try:
        _check_generic(op, spec)
        check_target(op, spec, arch, kernel)  # (target_checks.py: only with a target chip)
        if spec.verify is not None:
            spec.verify(op, kernel)
        check_scope(op, spec, kernel)  # (dialect/cta_checks.py: a scope wider than the CTA)
        cta_group = _CTA_GROUP.get(spec.full_name)
        if cta_group is not None:
            same_cta_group(op, read_attr(op, cta_group), kernel)
    except Decline as f:
        error(op, f"'{op.name}' op {f.check}: {f.reason}")
        return False
    return True


def verify_module(module_op, arch=None) -> bool:
    """Verify every tile op under module_op; report each failure; True when all pass. With ``arch`` (an
    ArchInfo: tile-verify{chip=...}) the ops are also checked against the target's features."""
    ok = True
    ops = iter_ops(module_op)
    in_kernels: set = set()  # the ops nested in some kernel
    for op in ops:
        if op.name != "tile.kernel" or enclosing_kernel(op) is not None:
            continue  # a kernel inside a kernel is reported by the outer one
        parent = op.parent
        if parent is not None and op_name(parent) != "builtin.module":
            error(op, "'tile.kernel' op placement: must be at module level")
            ok = False
        body = iter_ops(op)
        in_kernels.update(body)
        ok &= _verify_kernel(op, body, arch)
    # tile ops outside any kernel, and other ops that take or make tile buffers
    for op in ops:
        name = op.name
        if name.startswith("tile."):
            if name != "tile.kernel" and op not in in_kernels:
                ok = False
                error(op, f"'{name}' op placement: must be nested in a tile.kernel")
        elif _uses_tile_types(op):
            ok = False
            error(op, _foreign_use(op))
    return ok


def _uses_tile_types(op) -> bool:
    """Whether a non-tile op makes tile-typed values, or takes them without being allowed to (ir_utils.
    takes_tile_buffers): no lowering handles them."""
    if any(is_tile_type(r.type) for r in op.results):
        return True
    return not takes_tile_buffers(op.name) and any(is_tile_type(v.type) for v in op.operands)


def _foreign_use(op) -> str:
    name = op.name
    if op.context.is_registered_operation(name):
        return f"op '{name}' uses tile buffers, which only tile ops take or make"
    guess = nearest_tile_op(name)
    return (f"op '{name}' of an unknown dialect uses tile buffers"
            + (f"; did you mean '{guess}'?" if guess else ""))


def _verify_kernel(kernel, body: list, arch=None) -> bool:
    """Verify the kernel, then the tile ops of `body` (the ops nested in it) that are its own."""
    info = KernelFacts()
    try:
        cl = read_attr(kernel, _CLUSTER) or (1, 1, 1)
        info.cluster_size = cl[0] * cl[1] * cl[2]
    except Decline:
        pass  # reported by verify_op below
    ok = verify_op(kernel, info)
    if not ok:
        return False
    info.threads = math.prod(read_attr(kernel, _BLOCK))
    for op, i in undominated_uses(kernel):
        where = ("used before its definition" if defined_inside(kernel, op.operands[i])
                 else "defined outside the tile.kernel, which is isolated from above")
        error(op, f"operand #{i} of '{op.name}' is {where}")
        ok = False
    nested = any(op.name == "tile.kernel" for op in body)
    for op in body:
        if not op.name.startswith("tile.") or (nested and enclosing_kernel(op) != kernel):
            continue  # the contents of a nested kernel are not this kernel's
        if op.name == "tile.kernel":
            error(op, "'tile.kernel' op placement: kernels cannot nest")
            ok = False
            continue
        ok &= verify_op(op, info, arch)
    return ok

