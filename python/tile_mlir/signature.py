"""What a runner needs to know of each tile.kernel, read from the verified tile IR before lowering: its
name, parameters (names, kinds, dtypes, shapes), launch shape, the parameters it writes (its outputs) and
the tensor-map records its TMA ops use."""
from __future__ import annotations

from .artifact import Param

__all__ = ["kernel_signature"]


def kernel_signature(module_op, text: str = "", filename: str = "") -> list[dict]:
    """For each tile.kernel: name, Params in order, block, cluster, tensor maps (read before lowering).

    Params are named by the kernel's arg_names (IR built with the builders), else as ``text`` (the source
    parsed as ``filename``) names the kernel's block arguments, else arg<i> (source.arg_names); sub-byte
    elements are packed (Param.bits)."""
    from .dialect.ops import read_attr, spec_of
    from .dialect.types import BufferType
    from .source import arg_names

    out = []
    for op in module_op.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != "tile.kernel":
            continue
        spec = {a.name: a for a in spec_of("tile.kernel").attrs}
        params = []
        args = op.regions[0].blocks[0].arguments
        names = list(read_attr(op, spec["arg_names"]) or ()) or arg_names(args, text, filename)
        for i, arg in enumerate(args):
            bt = BufferType.of(arg.type)
            if bt is not None:
                bits = bt.elem_bits if bt.elem_bits < 8 else 0
                params.append(Param(names[i], "buffer", bt.numpy_dtype, tuple(bt.shape), bits))
            else:
                params.append(Param(names[i], "scalar", {"i32": "int32", "i64": "int64", "f32": "float32"}[str(arg.type)]))
        written = _written_params(op)
        out.append({
            "name": read_attr(op, spec["sym_name"]),
            "outputs": tuple(p.name for i, p in enumerate(params) if i in written),
            "params": tuple(params),
            "block": tuple(read_attr(op, spec["block"])),
            "cluster": tuple(read_attr(op, spec["cluster"]) or (1, 1, 1)),
            "grid": tuple(read_attr(op, spec["grid"]) or (1, 1, 1)),
            "tensor_maps": _tensor_maps(op, args, params),
        })
    return out


def _tensor_maps(kernel, args, params) -> tuple:
    """The TensorMapParam of each tile.tensor_map of a verified kernel, in declaration order."""
    from .artifact import TensorMapParam
    from .dialect.ops import attr_value
    from .dialect.types import BufferType
    from .lowering.copy_async.tma_plan import tensor_map_params

    out = []
    for op in kernel.regions[0].blocks[0].operations:
        if op.operation.name != "tile.tensor_map":
            continue
        buf = op.operands[0]
        bt = BufferType.of(buf.type)
        index = next(i for i, a in enumerate(args) if a == buf)
        out.append(TensorMapParam(params[index].name, **tensor_map_params(
            bt.shape, bt.elem, attr_value(op, "box"), attr_value(op, "swizzle"), attr_value(op, "l2_promotion"),
            attr_value(op, "oob_fill"))))
    return tuple(out)


def _written_params(kernel) -> set[int]:
    """Indices of the kernel's buffer parameters that some op writes (the outputs a runner returns):
    those used as an operand that its op writes (the Writes traits of the op classes: dialect.ops.WRITERS;
    all uses of a parameter are in the kernel)."""
    from .dialect.ops import WRITERS

    written = set()
    for i, a in enumerate(kernel.regions[0].blocks[0].arguments):
        if any(u.operand_number in WRITERS.get(u.owner.operation.name, ()) for u in a.uses):
            written.add(i)
    return written
