"""The tile verifier (pass `tile-verify`, first in every pipeline).

It checks what ODS would for a registered dialect (operands, results, attributes against OP_SPECS) and
the dialect's semantic rules: buffer types and layouts well formed, scopes, regions in bounds, tensor
memory allocation sizes, one cta_group per kernel. Every failure is one error diagnostic at the op's
location, written `'tile.<op>' op <check>: <reason>` so tests and users can see which check failed.
"""
from __future__ import annotations

from ..diagnostics import error
from ..mlir import ir
from .checks import VerifyError, fail
from .ir_utils import enclosing_kernel, iter_ops, op_name, region_of
from .ops import OP_SPECS, OperandSpec, attr_value, read_attr, spec_of
from .types import BufferType, TypeParseError

__all__ = ["verify_module"]

_TMEM_LANES, _TMEM_COLS = 128, 512


# -- buffer types ------------------------------------------------------------------------------------
def buffer_type(value_or_type, what: str) -> BufferType:
    t = value_or_type.type if hasattr(value_or_type, "type") else value_or_type
    try:
        bt = BufferType.of(t)
    except TypeParseError as e:
        fail("buffer-type", f"{what}: {e}")
    if bt is None:
        fail("operand-type", f"{what} must be a !tile.buffer, got {t}")
    return bt


_VALID_BUFFERS: set[BufferType] = set()  # plain values (no MLIR objects): safe to keep across contexts


def check_buffer_once(bt: BufferType, what: str) -> None:
    """check_buffer, skipped for a buffer type that already passed (it depends on the type alone;
    programs repeat a few buffer types many times)."""
    if bt not in _VALID_BUFFERS:
        check_buffer(bt, what)
        _VALID_BUFFERS.add(bt)


def check_buffer(bt: BufferType, what: str) -> None:
    """Layout well formed and consistent with the buffer's scope and shape."""
    from ..layout import LayoutError

    try:
        lay = bt.layout
    except LayoutError as e:
        fail("layout", f"{what}: malformed layout \"{bt.layout_text}\": {e}")
    inner = getattr(lay, "inner", lay)
    swz = getattr(lay, "swizzle", None)
    extent = inner.shard_extent()
    if extent != bt.numel:
        fail("layout", f"{what}: layout covers {extent} elements but the buffer shape "
              f"{'x'.join(map(str, bt.shape))} has {bt.numel}")
    axes = {it.axis.name for it in (*inner.shard, *inner.replica)}
    if bt.packing is not None:
        from .types import PACKINGS

        if bt.scope != "shared":
            fail("packing", f"{what}: packing {bt.packing} is a shared-memory form; "
                  f"{bt.scope} buffers hold sub-byte elements packed contiguously")
        bits = PACKINGS[bt.packing][0]
        if bt.elem_bits != bits:
            fail("packing", f"{what}: packing {bt.packing} holds {bits}-bit elements, not {bt.elem}")
    if bt.scope == "tmem":
        if swz is not None:
            fail("layout", f"{what}: a tmem layout cannot be swizzled")
        if not axes <= {"TLane", "TCol"}:
            fail("layout", f"{what}: a tmem layout must map onto TLane and TCol, got axes {sorted(axes)}")
        if bt.elem_bits not in (4, 6, 8, 16, 32):
            fail("element-type", f"{what}: tmem holds 4, 6, 8, 16 or 32-bit elements, not {bt.elem}")
        lanes = _span(inner, "TLane")
        cols = _span(inner, "TCol")
        if lanes > _TMEM_LANES:
            fail("layout", f"{what}: layout reaches lane {lanes - 1}, beyond the {_TMEM_LANES} tmem lanes")
        if cols * bt.addr_bits > _TMEM_COLS * 32:
            fail("layout", f"{what}: layout spans {cols} {bt.elem} columns, beyond the {_TMEM_COLS} 32-bit tmem columns")
    else:
        if not axes <= {"m"}:
            fail("layout", f"{what}: a {bt.scope} layout maps onto memory (axis m), got axes {sorted(axes)}")
        if inner.replica:
            fail("layout", f"{what}: a {bt.scope} layout cannot have replicas")
        if swz is not None and bt.scope != "shared":
            fail("layout", f"{what}: only shared buffers can be swizzled")
        if swz is not None and bt.scope == "shared":
            from ..layout import atom_bytes

            need = atom_bytes(swz)
            if (bt.align or 16) < need:
                fail("swizzle-alignment", f"{what}: {swz.value} swizzle is applied to absolute shared addresses, "
                      f"so the buffer needs align {need} (the swizzle repeat), got {bt.align or 16}")
        span = _span(inner, "m")
        if span > bt.numel * (1 << 20):
            fail("layout", f"{what}: layout spans {span} elements, far beyond its {bt.numel} elements")


def _span(layout, axis_name: str) -> int:
    """1 + the largest offset the layout reaches on the axis (over all replicas)."""
    from ..layout import Axis

    axis = Axis.get(axis_name)
    for it in (*layout.shard, *layout.replica):
        if it.axis is axis and it.stride < 0:
            fail("layout", f"negative stride {it.stride} on {axis_name}")
    return layout.span(axis)


# -- the verifier --------------------------------------------------------------------------------------
_ATTR_NAMES = {s.full_name: frozenset(a.name for a in s.attrs) for s in OP_SPECS}
_KIND_OK = {
    "str": lambda x: isinstance(x, ir.StringAttr),
    "i64": lambda x: isinstance(x, ir.IntegerAttr),
    "i64_array": lambda x: isinstance(x, ir.DenseI64ArrayAttr),
    "i32_array3": lambda x: isinstance(x, ir.DenseI32ArrayAttr) and len(x) == 3,
}
_KIND_WANT = {"str": "a string", "i64": "an integer", "i64_array": "array<i64: ...>",
              "i32_array3": "array<i32: x, y, z>"}
_HAS_CTA_GROUP = frozenset(s.full_name for s in OP_SPECS if any(a.name == "cta_group" for a in s.attrs))


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


def _slot_check(op, v, elem_bits: int, what: str) -> None:
    bt = buffer_type(v, what)
    if bt.shape != (1,) or bt.elem_bits != elem_bits or bt.elem.startswith(("f", "bf")):
        fail("operand-type", f"{what} must be a shared 1xi{elem_bits} buffer, got {bt}")


def _pow2_cols(n: int) -> None:
    if n < 32 or n > 512 or n & (n - 1):
        fail("tmem-alloc", f"num_cols must be a power of two in [32, 512] (PTX tcgen05.alloc), got {n}")


def _check_specific(op, kernel_info: dict) -> None:
    name = op.name
    if name == "tile.kernel":
        block = attr_value(op, "block")
        if any(b <= 0 for b in block) or block[0] * block[1] * block[2] > 1024:
            fail("launch-shape", f"block {list(block)} must be positive with at most 1024 threads")
        cluster = attr_value(op, "cluster") or (1, 1, 1)
        if any(c <= 0 for c in cluster) or cluster[0] * cluster[1] * cluster[2] > 16:
            fail("launch-shape", f"cluster {list(cluster)} must be positive with at most 16 CTAs")
        blocks = list(op.regions[0].blocks)
        if len(blocks) != 1:
            fail("body", f"expects a single-block body, got {len(blocks)} blocks")
        for i, arg in enumerate(blocks[0].arguments):
            try:
                bt = BufferType.of(arg.type)
            except TypeParseError as e:
                fail("buffer-type", f"parameter #{i}: {e}")
            if bt is not None:
                if bt.scope != "global":
                    fail("parameter", f"parameter #{i} must be a global buffer or a scalar, got a {bt.scope} buffer")
                check_buffer_once(bt, f"parameter #{i}")
            elif str(arg.type) not in ("i32", "i64", "f32"):
                fail("parameter", f"parameter #{i} must be a global buffer or an i32/i64/f32 scalar, got {arg.type}")
        ops = blocks[0].operations  # (indexed, not listed: that would wrap every op)
        if not len(ops) or ops[-1].operation.name != "tile.return":
            fail("body", "the body must end with tile.return")
        return
    if name in ("tile.tmem.alloc", "tile.tmem.dealloc"):
        _slot_check(op, op.operands[0], 32, "operand #0 (slot)")
        _pow2_cols(attr_value(op, "num_cols"))
    elif name == "tile.tmem.buffer":
        _slot_check(op, op.operands[0], 32, "operand #0 (slot)")
        if not any(u.owner.name == "tile.tmem.alloc" for u in op.operands[0].uses if hasattr(u.owner, "name")):
            fail("tmem-address", "the slot is not written by any tile.tmem.alloc, so the buffer has no address")
    elif name in ("tile.commit", "tile.mbarrier.init", "tile.mbarrier.arrive", "tile.mbarrier.wait"):
        _slot_check(op, op.operands[0], 64, "operand #0 (barrier)")
        if name == "tile.mbarrier.init":
            count = attr_value(op, "count")
            if not 1 <= count < (1 << 20):
                fail("mbarrier", f"count must be in [1, 2^20 - 1], got {count}")
    elif name in ("tile.copy", "tile.copy_async"):
        dst_t = buffer_type(op.operands[0], "operand #0 (dst)")
        src_t = buffer_type(op.operands[1], "operand #1 (src)")
        dst_r = region_of(op, "dst", dst_t)
        src_r = region_of(op, "src", src_t)
        if dst_r.numel != src_r.numel:
            fail("region-size", f"dst region {list(dst_r.shape)} has {dst_r.numel} elements, "
                  f"src region {list(src_r.shape)} has {src_r.numel}")
        if dst_t.elem_bits != src_t.elem_bits:
            fail("element-type", f"dst element type {dst_t.elem} and src element type {src_t.elem} differ in width")
        if name == "tile.copy" and dst_r.shape != src_r.shape:
            fail("region-size", f"tile.copy needs equal region shapes, got {list(dst_r.shape)} and {list(src_r.shape)}")
    elif name == "tile.tmem.load":
        specs = {a.name: a for a in spec_of(name).attrs}
        n = read_attr(op, specs["num_cols"])
        if n < 1 or n > 512 or n & (n - 1):
            fail("tmem-load", f"num_cols must be a power of two in [1, 512] (tcgen05.ld.32x32b.xN, N <= 128 per "
                  f"instruction), got {n}")
        dst_t = buffer_type(op.operands[0], "operand #0 (dst)")
        if dst_t.elem_bits == 6:
            fail("tmem-load", f"dst holds packed 6-bit {dst_t.elem}, but tmem holds 6-bit data in 8-bit containers "
                  "and tile.tmem.load copies whole 32-bit columns: read them into an 8-bit buffer (e.g. ui8)")
        lanes = 32 if read_attr(op, specs["scope"]) == "warp" else 128
        if len(dst_t.shape) != 2 or dst_t.shape[0] != lanes or dst_t.shape[1] * dst_t.elem_bits != n * 32:
            fail("tmem-load", f"dst must be [{lanes}, {n * 32 // max(dst_t.elem_bits, 1)}] of {dst_t.elem} "
                  f"({lanes} lanes x {n} 32-bit columns), got {'x'.join(map(str, dst_t.shape))}")
        if read_attr(op, specs["col_offset"]) < 0:
            fail("tmem-load", "col_offset must be non-negative")
    # one cta_group for every tcgen05 op of the kernel (PTX: all tcgen05 instructions of a kernel agree)
    if name in _HAS_CTA_GROUP and name != "tile.copy_async" or (
            name == "tile.copy_async" and buffer_type(op.operands[0], "dst").scope == "tmem"):
        g = attr_value(op, "cta_group")
        first = kernel_info.setdefault("cta_group", (g, op))
        if first[0] != g:
            fail("cta-group", f"cta_group {g} differs from cta_group {first[0]} used earlier in this kernel; "
                  "every tcgen05 instruction of a kernel must use the same cta_group")
        if g == 2 and kernel_info.get("cluster_size", 1) % 2:
            fail("cta-group", "cta_group 2 needs a cluster of an even number of CTAs (set cluster on tile.kernel)")


def verify_op(op, kernel_info: dict) -> bool:
    spec = spec_of(op.name)
    if spec is None:
        error(op, f"unknown tile operation '{op.name}' (known: {', '.join(s.full_name for s in OP_SPECS)})")
        return False
    try:
        _check_generic(op, spec)
        _check_specific(op, kernel_info)
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
    info: dict = {}
    cl = kernel.attributes["cluster"] if "cluster" in kernel.attributes else None
    if cl is not None and isinstance(cl, ir.DenseI32ArrayAttr) and len(cl) == 3:  # else reported below
        info["cluster_size"] = cl[0] * cl[1] * cl[2]
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

