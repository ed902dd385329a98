"""What a runner needs to know of each tile.kernel, read from the verified tile IR before lowering: its
name, parameters (names, kinds, dtypes, shapes), launch shape, the parameters it writes (its outputs) and
the tensor-map records its TMA ops use."""
from __future__ import annotations

import re

from ..artifact import Param, is_param_name
from ..dialect.ops import WRITERS, attr_value, read_attr, spec_of
from ..dialect.ir_utils import iter_ops
from ..lowering.copy_async.tma_plan import tensor_map_params
from ..dialect.types import BufferType
from ..artifact import TensorMapParam

__all__ = ["kernel_signature", "param_names"]

_KERNEL = re.compile(r'"tile\.kernel"\s*\(\s*\)\s*\(\s*\{\s*(\^[\w$.-]+\s*\()?')
_COMMENT = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|//[^\n]*')
_ARG = re.compile(r"%([\w$.-]+)\s*:")


def kernel_signature(module_op, text: str = "", filename: str = "") -> list[dict]:
    """For each tile.kernel: name, Params in order, block, cluster, tensor maps (read before lowering).

    Params are named by param_names; sub-byte elements are packed (Param.bits)."""

    out = []
    listed = _text_arg_lists(text)
    kernels = [op.operation for op in module_op.regions[0].blocks[0].operations if op.operation.name == "tile.kernel"]
    for k, op in enumerate(kernels):
        spec = {a.name: a for a in spec_of("tile.kernel").attrs}
        params = []
        args = op.regions[0].blocks[0].arguments
        names = param_names(op, len(args), listed[k] if len(listed) == len(kernels) else None)
        for i, arg in enumerate(args):
            bt = BufferType.of(arg.type)
            if bt is not None:
                bits = bt.elem_bits if bt.elem_bits < 8 else 0
                params.append(Param(names[i], "buffer", bt.numpy_dtype, tuple(bt.shape), bits, bt.dynamic))
            else:
                params.append(Param(names[i], "scalar", {"i32": "int32", "i64": "int64", "f32": "float32"}[str(arg.type)]))
        written = _written_params(op) | _written_windows(op)
        scales = _scale_params(op)
        out.append({
            "name": read_attr(op, spec["sym_name"]),
            "outputs": tuple(p.name for i, p in enumerate(params) if i in written),
            "scales": tuple(p.name for i, p in enumerate(params) if i in scales),
            "params": tuple(params),
            "block": tuple(read_attr(op, spec["block"])),
            "cluster": tuple(read_attr(op, spec["cluster"]) or (1, 1, 1)),
            "grid": tuple(read_attr(op, spec["grid"]) or (1, 1, 1)),
            "tensor_maps": _tensor_maps(op, args, params),
        })
    return out


def _written_windows(kernel) -> set[int]:
    """Indices of the buffer parameters written through a tile.subview window (the GEMM's TMA store of a
    tile of D): a window written as an operand its op writes (dialect.ops.WRITERS), windows of windows
    included."""

    def written(view) -> bool:
        return any(u.operand_number in WRITERS.get(u.owner.operation.name, ()) or
                   u.owner.operation.name == "tile.subview" and u.operand_number == 0 and
                   written(u.owner.operation.results[0]) for u in view.uses)

    return {i for i, a in enumerate(kernel.regions[0].blocks[0].arguments)
            if any(u.operand_number == 0 and u.owner.operation.name == "tile.subview" and
                   written(u.owner.operation.results[0]) for u in a.uses)}


def param_names(kernel, count: int, written: list[str] | None) -> list[str]:
    """The names of a kernel's `count` parameters: its `arg_names` attribute when it has one, else
    `written`, the `%name`s of its entry block's argument list as the source text spells them
    (_text_arg_lists), else arg<i>. Never from locations: a `loc(...)` is the author's to write, so
    crafted ones swapped names (and a keyword call then bound the caller's input as an output).
    A name that is no parameter name (artifact.is_param_name) is arg<i>; when that repeats a name,
    or the names do not match the arguments one to one, all are arg<i>."""
    names = None
    if "arg_names" in kernel.attributes:
        try:
            names = [str(a.value) for a in kernel.attributes["arg_names"]]
        except (TypeError, AttributeError, ValueError):
            names = None
    if names is None:
        names = written
    if names is None or len(names) != count:
        return [f"arg{i}" for i in range(count)]
    names = [n if is_param_name(n) else f"arg{i}" for i, n in enumerate(names)]
    if len(set(names)) != count:  # a fallback repeats a name: all fall back
        return [f"arg{i}" for i in range(count)]
    return names


def _text_arg_lists(text: str) -> list[list[str]]:
    """For each `"tile.kernel"() ({^bb0(...)` of the source text, in order, the `%name`s of that
    argument list (comments and strings aside; none for a kernel written without one)."""
    if not text or "tile.kernel" not in text:
        return []
    blank = _COMMENT.sub(lambda m: m.group() if m.group() == '"tile.kernel"' else " " * len(m.group()), text)
    out = []
    for m in _KERNEL.finditer(blank):
        if m.group(1) is None:
            out.append([])
            continue
        depth, i = 1, m.end()
        while i < len(blank) and depth:
            depth += {"(": 1, ")": -1}.get(blank[i], 0)
            i += 1
        inner = blank[m.end():i - 1]
        # only the argument names at the list's top level: `%a: !tile.buffer<...>, %b: i32 loc(...)`
        flat, depth = [], 0
        for c in inner:
            depth += (c in "(<[{") - (c in ")>]}")
            flat.append(c if depth == 0 else " ")
        out.append(_ARG.findall("".join(flat)))
    return out


def _tensor_maps(kernel, args, params) -> tuple:
    """The TensorMapParam of each tile.tensor_map of a verified kernel, in declaration order."""

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


_VIEWS = ("tile.subview", "tile.reinterpret")
_COPIES = ("tile.copy", "tile.copy_async")


def _scale_params(kernel) -> set[int]:
    """Indices of the buffer parameters whose data reach the scale-factor operands (sfa, sfb) of a block-scaled
    MMA: back from those operands through views (subview, reinterpret) and copies (dst <- src). A runner draws
    them as E8M0 exponents near 1.0 (tile-run: products of random data then stay finite)."""
    args = list(kernel.regions[0].blocks[0].arguments)
    frontier, seen = [], set()
    for op in _walk(kernel):
        if op.name == "tile.gemm_async.block_scale":
            frontier += list(op.operands)[-2:]  # (sfa, sfb: the op's last operands)
    found = set()
    while frontier:
        v = frontier.pop()
        base = v
        while hasattr(base.owner, "operation") and base.owner.operation.name in _VIEWS:
            base = base.owner.operation.operands[0]
        if any(base == a for a in args):
            found.add(next(i for i, a in enumerate(args) if a == base))
            continue
        if base in seen:
            continue
        seen.add(base)
        for view in _views_of(base):  # every name of base's memory: the copies writing any of them
            for u in view.uses:
                owner = u.owner.operation
                if owner.name in _COPIES and u.operand_number == 0:
                    frontier.append(owner.operands[1])
    return found


def _views_of(value) -> list:
    out, todo = [], [value]
    while todo:
        v = todo.pop()
        out.append(v)
        todo += [u.owner.operation.results[0] for u in v.uses
                 if u.owner.operation.name in _VIEWS and u.operand_number == 0]
    return out


def _walk(op) -> list:

    return iter_ops(op)


def _written_params(kernel) -> set[int]:
    """Indices of the kernel's buffer parameters that some op writes (the outputs a runner returns):
    those used as an operand that its op writes (the Writes traits of the op classes: dialect.ops.WRITERS;
    all uses of a parameter are in the kernel)."""

    written = set()
    for i, a in enumerate(kernel.regions[0].blocks[0].arguments):
        if any(u.operand_number in WRITERS.get(u.owner.operation.name, ()) for u in a.uses):
            written.add(i)
    return written
