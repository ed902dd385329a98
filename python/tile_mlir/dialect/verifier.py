"""The tile verifier (pass `tile-verify`, first in every pipeline).

It checks what ODS would for a registered dialect: operands, results and attributes against OP_SPECS
(buffer types and layouts well formed, scopes), then each op's own verifier (OpSpec.verify: regions in
bounds, tensor memory allocation sizes, ...), then one cta_group for the tcgen05 ops of a kernel (by
trait), and where tile ops may be placed. Every failure is one error diagnostic at the op's location,
written `'tile.<op>' op <check>: <reason>` so tests and users can see which check failed.
"""
from __future__ import annotations

from ..diagnostics import error
from ..mlir import ir
from .checks import KernelFacts, VerifyError, buffer_type, check_buffer_once, fail, same_cta_group
from .ir_utils import enclosing_kernel, iter_ops, op_name
from .ops import OP_SPECS, OperandSpec, Trait, read_attr, spec_of

__all__ = ["verify_module"]

_ATTR_NAMES = {s.full_name: frozenset(a.name for a in s.attrs) for s in OP_SPECS}
_KIND_OK = {
    "str": lambda x: isinstance(x, ir.StringAttr),
    "i64": lambda x: isinstance(x, ir.IntegerAttr),
    "i64_array": lambda x: isinstance(x, ir.DenseI64ArrayAttr),
    "i32_array3": lambda x: isinstance(x, ir.DenseI32ArrayAttr) and len(x) == 3,
}
_KIND_WANT = {"str": "a string", "i64": "an integer", "i64_array": "array<i64: ...>",
              "i32_array3": "array<i32: x, y, z>"}
# the cta_group attribute of each tcgen05 op that has one (copy_async: its verifier decides, by destination)
_CTA_GROUP = {s.full_name: a for s in OP_SPECS if Trait.TCGEN05 in s.traits for a in s.attrs if a.name == "cta_group"}



def _check_operand(v, o: OperandSpec, idx: int) -> None:
    what = f"operand #{idx} ({o.name})"
    if o.constraint.startswith("buffer:"):
        scopes = o.constraint.split(":", 1)[1].split("|")
        bt = buffer_type(v, what)
        if bt.scope not in scopes:
            fail("operand-scope", f"{what} must be a {' or '.join(scopes)} buffer, got a {bt.scope} buffer")
        check_buffer_once(bt, what)
    elif str(v.type) != o.constraint:
        fail("operand-type", f"{what} must be {o.constraint}, got {v.type}")


def _check_generic(op, spec) -> None:
    operands, results = op.operands, op.results
    n_operands = len(operands)
    if n_operands != len(spec.operands):
        fail("operands", f"expects {len(spec.operands)} operand(s) "
             f"({', '.join(o.name for o in spec.operands) or 'none'}), got {n_operands}")
    for i, (v, o) in enumerate(zip(operands, spec.operands)):
        _check_operand(v, o, i)
    if len(results) != len(spec.results):
        fail("results", f"expects {len(spec.results)} result(s), got {len(results)}")
    for i, (r, o) in enumerate(zip(results, spec.results)):
        if not o.constraint.startswith("buffer:"):
            if str(r.type) != o.constraint:
                fail("result-type", f"result #{i} must be {o.constraint}, got {r.type}")
        else:
            bt = buffer_type(r, f"result #{i}")
            scopes = o.constraint.split(":", 1)[1].split("|")
            if bt.scope not in scopes:
                fail("result-scope", f"result #{i} must be a {' or '.join(scopes)} buffer, got a {bt.scope} buffer")
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
        raw = attrs[a.name]
        if not _KIND_OK[a.kind](raw):
            fail("attributes", f"attribute '{a.name}' must be {_KIND_WANT[a.kind]}, got {raw}")
        if a.choices and read_attr(op, a) not in a.choices:
            fail("attributes", f"attribute '{a.name}' must be one of {', '.join(map(str, a.choices))}, "
                 f"got {read_attr(op, a)!r}")


def verify_op(op, kernel: KernelFacts) -> bool:
    spec = spec_of(op.name)
    if spec is None:
        error(op, f"unknown tile operation '{op.name}' (known: {', '.join(s.full_name for s in OP_SPECS)})")
        return False
    try:
        _check_generic(op, spec)
        if spec.verify is not None:
            spec.verify(op, kernel)
        cta_group = _CTA_GROUP.get(spec.full_name)
        if cta_group is not None:
            same_cta_group(op, read_attr(op, cta_group), kernel)
    except VerifyError as f:
        error(op, f"'{op.name}' op {f.check}: {f.reason}")
        return False
    return True


def verify_module(module_op) -> bool:
    """Verify every tile op under module_op; report each failure; True when all pass."""
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
        ok &= _verify_kernel(op, body)
    # tile ops outside any kernel
    for op in ops:
        if op.name.startswith("tile.") and op.name != "tile.kernel":
            if op not in in_kernels:
                ok = False
                error(op, f"'{op.name}' op placement: must be nested in a tile.kernel")
    return ok


def _verify_kernel(kernel, body: list) -> bool:
    """Verify the kernel, then the tile ops of `body` (the ops nested in it) that are its own."""
    info = KernelFacts()
    cl = kernel.attributes["cluster"] if "cluster" in kernel.attributes else None
    if cl is not None and isinstance(cl, ir.DenseI32ArrayAttr) and len(cl) == 3:  # else reported below
        info.cluster_size = cl[0] * cl[1] * cl[2]
    ok = verify_op(kernel, info)
    if not ok:
        return False
    nested = any(op.name == "tile.kernel" for op in body)
    for op in body:
        if not op.name.startswith("tile.") or (nested and enclosing_kernel(op) != kernel):
            continue  # the contents of a nested kernel are not this kernel's
        if op.name == "tile.kernel":
            error(op, "'tile.kernel' op placement: kernels cannot nest")
            ok = False
            continue
        ok &= verify_op(op, info)
    return ok

