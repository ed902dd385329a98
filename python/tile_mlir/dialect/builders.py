"""Python builders for tile ops: snake_case functions returning Values (or the op when it has none).

    with ir.Location.unknown(ctx):
        module = ir.Module.create()
        with kernel(module, "demo", [buffer_t("global", (32, 16), "ui8")], block=(128, 1, 1)) as (k, args):
            smem = alloc_shared(buffer_t("shared", (32, 16), "ui8", "S[(32, 16) : (16, 1)]", align=1024))
            ...
            ret()

Every builder takes `loc=` and `ip=` keyword arguments like the upstream generated builders; attribute
values are plain Python values converted by the op's spec (OP_SPECS).
"""
from __future__ import annotations

from contextlib import contextmanager

from ..mlir import ir
from .ops import OPVIEWS, make_attr, spec_of
from .types import BufferType

__all__ = ["buffer_t", "build", "kernel", "ret", "thread_id", "warp_id", "lane_id", "cta_rank", "elect_one",
           "alloc_shared", "copy", "fence", "barrier", "tmem_alloc", "tmem_relinquish", "tmem_dealloc",
           "tmem_buffer", "copy_async", "commit", "async_wait", "mbarrier_init", "mbarrier_arrive",
           "mbarrier_wait", "tmem_load", "alloc_reg", "convert", "tensor_map", "tensor_map_prefetch", "mbarrier_arrive_expect_tx",
           "mbarrier_expect_tx", "bulk_wait"]


def buffer_t(scope: str, shape, elem: str, layout: str | None = None, *, align: int | None = None):
    """The MLIR type !tile.buffer<scope, shape x elem[, "layout"][, align N]>."""
    return BufferType(scope, tuple(shape), elem, layout, align).to_mlir()


def build(name: str, operands=(), results=(), *, loc=None, ip=None, **attrs):
    """Create tile.<name> with attributes converted per its spec; returns the OpView."""
    spec = spec_of("tile." + name)
    if spec is None:
        raise ValueError(f"unknown tile op 'tile.{name}'")
    by_name = {a.name: a for a in spec.attrs}
    attributes = {}
    for k, v in attrs.items():
        if v is None:
            continue
        if k not in by_name:
            raise TypeError(f"tile.{name} has no attribute '{k}' (has: {', '.join(by_name) or 'none'})")
        attributes[k] = make_attr(by_name[k], v)
    op = ir.Operation.create(spec.full_name, results=list(results), operands=list(operands),
                             attributes=attributes, regions=spec.regions, loc=loc, ip=ip)
    return OPVIEWS[spec.full_name](op) if spec.full_name in OPVIEWS else op


def _result(op):
    return op.results[0]


@contextmanager
def kernel(module, name: str, params, *, block, cluster=None, grid=None, loc=None):
    """Append a tile.kernel to `module`; yields (op, block arguments) with the insertion point in its body."""
    op = build("kernel", sym_name=name, block=block, cluster=cluster, grid=grid, loc=loc,
               ip=ir.InsertionPoint(module.body))
    body = op.regions[0].blocks.append(*params)
    with ir.InsertionPoint(body):
        yield op, list(body.arguments)


def ret(*, loc=None, ip=None):
    return build("return", loc=loc, ip=ip)


def _i32_op(name):
    def f(*, loc=None, ip=None):
        return _result(build(name, results=[ir.IntegerType.get_signless(32)], loc=loc, ip=ip))
    f.__name__ = name
    f.__doc__ = spec_of("tile." + name).summary
    return f


thread_id = _i32_op("thread_id")
warp_id = _i32_op("warp_id")
lane_id = _i32_op("lane_id")
cta_rank = _i32_op("cta_rank")


def elect_one(*, loc=None, ip=None):
    return _result(build("elect_one", results=[ir.IntegerType.get_signless(1)], loc=loc, ip=ip))


def alloc_shared(t, *, loc=None, ip=None):
    return _result(build("alloc_shared", results=[t], loc=loc, ip=ip))


def _region_attrs(dst_region, src_region):
    out = {}
    for side, reg in (("dst", dst_region), ("src", src_region)):
        if reg is not None:
            out[f"{side}_offsets"] = [b for b, _ in reg]
            out[f"{side}_sizes"] = [e - b for b, e in reg]
    return out


def copy(dst, src, *, dst_region=None, src_region=None, scope="cta", loc=None, ip=None):
    return build("copy", [dst, src], scope=scope, loc=loc, ip=ip, **_region_attrs(dst_region, src_region))


def fence(kind: str, *, loc=None, ip=None):
    return build("fence", kind=kind, loc=loc, ip=ip)


def barrier(scope: str = "cta", *, loc=None, ip=None):
    return build("barrier", scope=scope, loc=loc, ip=ip)


def tmem_alloc(slot, num_cols: int, *, cta_group: int = 1, loc=None, ip=None):
    return build("tmem.alloc", [slot], num_cols=num_cols, cta_group=cta_group, loc=loc, ip=ip)


def tmem_relinquish(*, cta_group: int = 1, loc=None, ip=None):
    return build("tmem.relinquish", cta_group=cta_group, loc=loc, ip=ip)


def tmem_dealloc(slot, num_cols: int, *, cta_group: int = 1, loc=None, ip=None):
    return build("tmem.dealloc", [slot], num_cols=num_cols, cta_group=cta_group, loc=loc, ip=ip)


def tmem_buffer(slot, t, *, loc=None, ip=None):
    return _result(build("tmem.buffer", [slot], results=[t], loc=loc, ip=ip))


def copy_async(dst, src, *, dst_region=None, src_region=None, cta_group: int = 1, scope: str = "thread",
               dispatch: str | None = None, barrier=None, multicast_mask: int | None = None, loc=None, ip=None):
    """barrier: the mbarrier a TMA load completes on (operand #2)."""
    operands = [dst, src] + ([barrier] if barrier is not None else [])
    return build("copy_async", operands, cta_group=cta_group, scope=scope, dispatch=dispatch,
                 multicast_mask=multicast_mask, loc=loc, ip=ip, **_region_attrs(dst_region, src_region))


def tensor_map(buffer, box, *, swizzle: str = "none", l2_promotion: str = "none", oob_fill: str = "zero",
               loc=None, ip=None):
    return _result(build("tensor_map", [buffer], results=[ir.OpaqueType.get("tile", "tensormap")], box=box,
                         swizzle=swizzle, l2_promotion=l2_promotion, oob_fill=oob_fill, loc=loc, ip=ip))


def tensor_map_prefetch(map_value, *, loc=None, ip=None):
    return build("tensor_map.prefetch", [map_value], loc=loc, ip=ip)


def mbarrier_arrive_expect_tx(barrier_buf, nbytes: int, *, loc=None, ip=None):
    return build("mbarrier.arrive_expect_tx", [barrier_buf], bytes=nbytes, loc=loc, ip=ip)


def mbarrier_expect_tx(barrier_buf, nbytes: int, *, loc=None, ip=None):
    return build("mbarrier.expect_tx", [barrier_buf], bytes=nbytes, loc=loc, ip=ip)


def bulk_wait(pending: int = 0, *, kind: str = "all", loc=None, ip=None):
    return build("bulk_wait", pending=pending, kind=kind, loc=loc, ip=ip)


def commit(barrier_buf, *, cta_group: int = 1, multicast_mask: int | None = None, loc=None, ip=None):
    return build("commit", [barrier_buf], cta_group=cta_group, multicast_mask=multicast_mask, loc=loc, ip=ip)


def async_wait(*, loc=None, ip=None):
    return build("async_wait", loc=loc, ip=ip)


def mbarrier_init(barrier_buf, count: int, *, loc=None, ip=None):
    return build("mbarrier.init", [barrier_buf], count=count, loc=loc, ip=ip)


def mbarrier_arrive(barrier_buf, *, loc=None, ip=None):
    return build("mbarrier.arrive", [barrier_buf], loc=loc, ip=ip)


def mbarrier_wait(barrier_buf, phase: int = 0, *, loc=None, ip=None):
    return build("mbarrier.wait", [barrier_buf], phase=phase, loc=loc, ip=ip)


def tmem_load(dst, src, *, num_cols: int, col_offset: int = 0, scope: str = "warpgroup", loc=None, ip=None):
    return build("tmem.load", [dst, src], num_cols=num_cols, col_offset=col_offset, scope=scope, loc=loc, ip=ip)


def alloc_reg(t, *, loc=None, ip=None):
    return _result(build("alloc_reg", results=[t], loc=loc, ip=ip))


def convert(dst, src, *, rounding: str = "rn", loc=None, ip=None):
    return build("convert", [dst, src], rounding=rounding, loc=loc, ip=ip)
