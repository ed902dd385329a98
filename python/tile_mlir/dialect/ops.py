"""The `tile` dialect's operations: one declarative table, Python OpViews and builders.

The bindings cannot register a dialect from Python, so tile ops live in an unregistered `tile` namespace
in generic form; OpView classes registered for their names give typed access, and the verifier
(tile_mlir.dialect.verifier) checks what ODS would. OP_SPECS is the single source of truth: the
verifier, the builders and lib/TileOps.irdl (checked by test/python/test_irdl_agreement.py) follow it.

Operand order and attribute names are stable; FileCheck tests depend on them.
"""
from __future__ import annotations

from dataclasses import dataclass

import sys

from .. import mlir as _mlir
from ..mlir import ir, register_dialect, register_operation

__all__ = ["OperandSpec", "AttrSpec", "OpSpec", "OP_SPECS", "spec_of", "OPVIEWS"]


@dataclass(frozen=True)
class OperandSpec:
    name: str
    # "buffer:<scope>[|<scope>]" for !tile.buffer of those scopes, or an MLIR type spelling (i1, i32)
    constraint: str
    optional: bool = False


@dataclass(frozen=True)
class AttrSpec:
    name: str
    kind: str  # "str" | "i64" | "i64_array" | "i32_array3"
    required: bool = False
    default: object = None
    choices: tuple = ()


@dataclass(frozen=True)
class OpSpec:
    name: str  # without the "tile." prefix
    summary: str
    operands: tuple[OperandSpec, ...] = ()
    results: tuple[OperandSpec, ...] = ()
    attrs: tuple[AttrSpec, ...] = ()
    regions: int = 0
    terminator: bool = False

    @property
    def full_name(self) -> str:
        return "tile." + self.name

    def attr(self, name: str) -> AttrSpec:
        try:
            return self._attr_map[name]
        except AttributeError:
            object.__setattr__(self, "_attr_map", {a.name: a for a in self.attrs})
            return self._attr_map[name]


SCOPE_CHOICES = ("thread", "warp", "warpgroup", "cta")
_CTA_GROUP = AttrSpec("cta_group", "i64", default=1, choices=(1, 2))
_REGION_ATTRS = (
    AttrSpec("dst_offsets", "i64_array"), AttrSpec("dst_sizes", "i64_array"),
    AttrSpec("src_offsets", "i64_array"), AttrSpec("src_sizes", "i64_array"),
)

OP_SPECS: tuple[OpSpec, ...] = (
    OpSpec("kernel", "A GPU kernel; its block arguments are the kernel parameters (global buffers or "
           "i32/i64/f32 scalars, in PTX .param order).",
           attrs=(AttrSpec("sym_name", "str", required=True), AttrSpec("block", "i32_array3", required=True),
                  AttrSpec("cluster", "i32_array3"), AttrSpec("grid", "i32_array3")),
           regions=1),
    OpSpec("return", "Terminates a tile.kernel body.", terminator=True),
    OpSpec("thread_id", "Linear thread index in the CTA.", results=(OperandSpec("result", "i32"),)),
    OpSpec("warp_id", "Warp index in the CTA (linear thread index / 32).", results=(OperandSpec("result", "i32"),)),
    OpSpec("lane_id", "Lane index in the warp.", results=(OperandSpec("result", "i32"),)),
    OpSpec("cta_rank", "Rank of this CTA in its cluster (%cluster_ctarank).", results=(OperandSpec("result", "i32"),)),
    OpSpec("elect_one", "True in exactly one lane of the executing warp (elect.sync); executed by a whole warp.",
           results=(OperandSpec("result", "i1"),)),
    OpSpec("alloc_shared", "A static shared-memory buffer, aligned as its type says.",
           results=(OperandSpec("result", "buffer:shared"),)),
    OpSpec("copy", "Synchronous element copy between global and shared buffers by every thread of `scope`.",
           operands=(OperandSpec("dst", "buffer:global|shared"), OperandSpec("src", "buffer:global|shared")),
           attrs=_REGION_ATTRS + (AttrSpec("scope", "str", default="cta", choices=SCOPE_CHOICES),)),
    OpSpec("fence", "A memory fence: proxy_async (fence.proxy.async.shared::cta, after generic stores that an "
           "async-proxy read consumes), tcgen05_before_sync / tcgen05_after_sync, mbarrier_init.",
           attrs=(AttrSpec("kind", "str", required=True,
                           choices=("proxy_async", "tcgen05_before_sync", "tcgen05_after_sync", "mbarrier_init")),)),
    OpSpec("barrier", "Thread barrier of the CTA (bar.sync 0) or of the cluster.",
           attrs=(AttrSpec("scope", "str", default="cta", choices=("cta", "cluster")),)),
    OpSpec("tmem.alloc", "tcgen05.alloc of num_cols tensor-memory columns by the executing warp; the address is "
           "written to `slot` (a shared 1xi32 buffer).",
           operands=(OperandSpec("slot", "buffer:shared"),),
           attrs=(AttrSpec("num_cols", "i64", required=True), _CTA_GROUP)),
    OpSpec("tmem.relinquish", "tcgen05.relinquish_alloc_permit by the executing warp.", attrs=(_CTA_GROUP,)),
    OpSpec("tmem.dealloc", "tcgen05.dealloc of the allocation whose address is in `slot`, by the executing warp.",
           operands=(OperandSpec("slot", "buffer:shared"),),
           attrs=(AttrSpec("num_cols", "i64", required=True), _CTA_GROUP)),
    OpSpec("tmem.buffer", "A tensor-memory buffer over the address that tile.tmem.alloc wrote to `slot`.",
           operands=(OperandSpec("slot", "buffer:shared"),), results=(OperandSpec("result", "buffer:tmem"),)),
    OpSpec("copy_async", "Asynchronous copy of src[region] to dst[region], lowered by the copy_async dispatch "
           "(tcgen05.cp for shared -> tmem). It emits no completion: commit to an mbarrier.",
           operands=(OperandSpec("dst", "buffer:global|shared|tmem"), OperandSpec("src", "buffer:global|shared|tmem")),
           attrs=_REGION_ATTRS + (_CTA_GROUP, AttrSpec("scope", "str", default="thread", choices=SCOPE_CHOICES),
                                  AttrSpec("dispatch", "str"))),
    OpSpec("commit", "tcgen05.commit: arrive once on `barrier` when this thread's earlier tcgen05 async ops "
           "complete (multicast to the CTAs of multicast_mask when given).",
           operands=(OperandSpec("barrier", "buffer:shared"),),
           attrs=(_CTA_GROUP, AttrSpec("multicast_mask", "i64"))),
    OpSpec("async_wait", "Wait for this thread's cp.async copies (cp.async.wait_all).", attrs=()),
    OpSpec("mbarrier.init", "mbarrier.init with the expected arrival count.",
           operands=(OperandSpec("barrier", "buffer:shared"),), attrs=(AttrSpec("count", "i64", required=True),)),
    OpSpec("mbarrier.arrive", "mbarrier.arrive by the executing thread.", operands=(OperandSpec("barrier", "buffer:shared"),)),
    OpSpec("mbarrier.wait", "Spin on mbarrier.try_wait.parity until the phase with parity `phase` completes.",
           operands=(OperandSpec("barrier", "buffer:shared"),), attrs=(AttrSpec("phase", "i64", default=0, choices=(0, 1)),)),
    OpSpec("tmem.load", "Read tensor memory back to a global buffer: each warp of `scope` reads the 32 lanes of its "
           "quarter, columns [col_offset, col_offset + num_cols) (32-bit) of `src`, with tcgen05.ld.32x32b and "
           "tcgen05.wait::ld, and stores row (lane) by row into dst (shape [lanes, num_cols * 32 / bits]).",
           operands=(OperandSpec("dst", "buffer:global"), OperandSpec("src", "buffer:tmem")),
           attrs=(AttrSpec("col_offset", "i64", default=0), AttrSpec("num_cols", "i64", required=True),
                  AttrSpec("scope", "str", default="warpgroup", choices=("warp", "warpgroup")))),
)

_BY_NAME = {s.full_name: s for s in OP_SPECS}


def spec_of(name: str) -> OpSpec | None:
    return _BY_NAME.get(name)


@register_dialect
class _TileDialect(ir.Dialect):
    DIALECT_NAMESPACE = "tile"


def _class_name(spec: OpSpec) -> str:
    return "".join(p.capitalize() for p in spec.name.replace(".", "_").split("_")) + "Op"


def _make_opview(spec: OpSpec):
    def attr(self, name):
        a = spec_attr(spec, name)
        return read_attr(self.operation, a)

    ns = {
        "OPERATION_NAME": spec.full_name,
        "_ODS_REGIONS": (spec.regions, True),
        "SPEC": spec,
        "attr": attr,
        "__doc__": spec.summary,
    }
    for i, o in enumerate(spec.operands):
        ns[o.name] = property(lambda self, i=i: self.operation.operands[i])
    cls = type(_class_name(spec), (ir.OpView,), ns)
    return register_operation(_TileDialect)(cls)


def spec_attr(spec: OpSpec, name: str) -> AttrSpec:
    return spec.attr(name)


def attr_value(op, name: str):
    """The Python value of tile op `op`'s attribute `name` (its default when absent)."""
    return read_attr(op, _BY_NAME[op.name].attr(name))


def read_attr(op, a: AttrSpec):
    """The Python value of attribute `a` on op (its default when absent). Kinds are verified first."""
    return read_attr_in(op.attributes, a)


def read_attr_in(attrs, a: AttrSpec):
    """read_attr on an op's attribute map (`op.attributes`), for callers that already hold it."""
    if a.name not in attrs:  # (a KeyError from the bindings costs ~15x a membership test)
        return a.default
    return _READERS[a.kind](attrs[a.name])


# Attributes come back already downcast to their concrete class (StringAttr, IntegerAttr, ...).
_READERS = {
    "str": lambda v: v.value,
    "i64": lambda v: v.value,
    "i64_array": tuple,
    "i32_array3": tuple,
}


def make_attr(a: AttrSpec, value):
    if a.kind == "str":
        return ir.StringAttr.get(value)
    if a.kind == "i64":
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))
    if a.kind == "i64_array":
        return ir.DenseI64ArrayAttr.get([int(x) for x in value])
    if a.kind == "i32_array3":
        return ir.DenseI32ArrayAttr.get([int(x) for x in value])
    raise AssertionError(a.kind)


OPVIEWS = {s.full_name: _make_opview(s) for s in OP_SPECS}
# The bindings look for a Python module of each dialect namespace whenever they wrap an op, and do not
# remember a miss: name this module as the `tile` dialect's so the lookup succeeds at once.
sys.modules.setdefault(f"{_mlir._ROOT}.dialects.tile", sys.modules[__name__])
for _cls in OPVIEWS.values():
    globals()[_cls.__name__] = _cls
__all__ += [c.__name__ for c in OPVIEWS.values()]
