"""IR helpers over tile ops, shared by the verifier and the lowerings: walks, the enclosing kernel, and
the static regions (offsets and sizes) that copy ops name."""
from __future__ import annotations

from ..mlir import ir
from .decline import fail
from .types import BufferType

__all__ = ["iter_ops", "op_name", "enclosing_kernel", "BUFFER_CAST", "takes_tile_buffers", "Region", "region_of",
           "constant_int"]

# tile-lower-copy-async hands buffers to the code it emits as casts to pointers or tmem addresses,
# which convert-tile-to-nvvm resolves
BUFFER_CAST = "builtin.unrealized_conversion_cast"


def iter_ops(op) -> list:
    """Every op nested in `op` (excluding op itself) in pre-order, as Operations: an upstream op's
    OpView may name its symbol in `.name` (func.func), an Operation's `.name` is always the op name.
    One walk in C++: about twice as fast as recursing over regions and blocks in Python."""
    ops = []
    advance = ir.WalkResult.ADVANCE

    def visit(inner):
        ops.append(inner)
        return advance

    op.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return ops[1:]


def op_name(op) -> str:
    return op.operation.name


def constant_int(value) -> int | None:
    """The integer of an arith.constant SSA value, or None for any other value (known only at run time)."""
    owner = getattr(value, "owner", None)
    if owner is None or getattr(owner, "name", None) != "arith.constant":
        return None
    attr = owner.attributes["value"]
    return attr.value if isinstance(attr, ir.IntegerAttr) else None  # (attributes come back downcast)


def enclosing_kernel(op):
    """The tile.kernel around op, or None."""
    p = op.parent
    while p is not None:
        if op_name(p) == "tile.kernel":
            return p.operation
        p = p.parent
    return None


def takes_tile_buffers(name: str) -> bool:
    """Whether ops named `name` may take tile buffers: tile ops, and the casts of copy_async lowerings."""
    return name.startswith("tile.") or name == BUFFER_CAST


class Region(tuple):
    """((begin, end), ...) per dimension."""

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(e - b for b, e in self)

    @property
    def numel(self) -> int:
        n = 1
        for b, e in self:
            n *= e - b
        return n


def region_of(op, side: str, bt: BufferType) -> Region:
    """The `side` ("dst" or "src") region of a copy op over a buffer of type bt: its `<side>_offsets` and
    `<side>_sizes` attributes (default: the whole buffer). Raises Decline when it is malformed."""
    attrs = op.attributes
    offs, sizes = _i64_array(attrs, f"{side}_offsets"), _i64_array(attrs, f"{side}_sizes")
    rank = len(bt.shape)
    offs = offs if offs is not None else (0,) * rank
    sizes = sizes if sizes is not None else tuple(d - o for d, o in zip(bt.shape, offs))
    if len(offs) != rank or len(sizes) != rank:
        fail("region-rank", f"{side} region has {len(offs)} offsets and {len(sizes)} sizes for a rank-{rank} buffer")
    for d, (o, s, ext) in enumerate(zip(offs, sizes, bt.shape)):
        if o < 0 or s <= 0 or o + s > ext:
            fail("region-in-bounds", f"{side} region [{o}, {o + s}) of dim {d} is outside the buffer's extent {ext}")
    return Region((o, o + s) for o, s in zip(offs, sizes))


def _i64_array(attrs, name: str) -> tuple | None:
    return tuple(attrs[name]) if name in attrs else None
