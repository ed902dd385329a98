"""Python builders for tile ops: one keyword builder per op class, derived from its fields.

    with ir.Location.unknown(ctx):
        module = ir.Module.create()
        with kernel(module, "demo", {"a": buffer_t("global", (32, 16), "ui8")}, block=(128, 1, 1)) as (k, args):
            smem = alloc_shared(buffer_t("shared", (32, 16), "ui8", "S[(32, 16) : (16, 1)]", align=1024))
            ...
            ret()

tile.<name> has the builder `<name>` with "." as "_" (tile.tmem.alloc: tmem_alloc; tile.return: ret).
Its parameters: the operands in order (a variadic one a sequence, an optional one None when absent),
the type of each buffer result that cannot be inferred (`result_type`), then the attributes, required
ones first, as plain Python values or enum members (dialect/enums.py), and `<side>_region=[(begin, end),
...]` for an op's static regions. Attributes with a default are written with it (so the IR says what the
op does), None leaves one out. Every builder takes `loc=` and `ip=` like the upstream generated builders
and returns the result Value, or the op when it has none.
"""
from __future__ import annotations

import inspect
from contextlib import contextmanager

from ..mlir import arith, ir, scf
from .op_def import BufferOf, make_attr
from .ops import OP_CLASSES, KernelOp, SubviewOp, op_class
from .types import DYNAMIC_EXTENT, BufferType

__all__ = ["buffer_t", "build", "kernel", "ret", "BUILDERS", "builder_name", "Constants", "when", "loop"]


def buffer_t(scope: str, shape, elem: str, layout: str | None = None, *, align: int | None = None,
             packing: str | None = None):
    """The MLIR type !tile.buffer<scope, shape x elem[, "layout"][, align N][, packing P]>; a None in shape is
    a runtime extent (`?`, global buffers: dialect/types.py)."""
    shape = tuple(shape)
    dynamic = tuple(i for i, d in enumerate(shape) if d is None)
    shape = tuple(DYNAMIC_EXTENT if d is None else d for d in shape)
    return BufferType.parse_body(BufferType(scope, shape, elem, layout, align, packing, dynamic).body()).to_mlir()


def build(name: str, operands=(), results=(), *, loc=None, ip=None, **attrs):
    """Create tile.<name> with attributes converted per its class; returns the op's view."""
    cls = op_class("tile." + name)
    if cls is None:
        raise ValueError(f"unknown tile op 'tile.{name}'")
    spec = cls.SPEC
    attributes = {}
    for k, v in attrs.items():
        if v is None:
            continue
        try:
            a = spec.attr(k)
        except KeyError:
            names = ", ".join(a.name for a in spec.attrs) or "none"
            raise TypeError(f"tile.{name} has no attribute '{k}' (has: {names})") from None
        attributes[k] = make_attr(a, v)
    op = ir.Operation.create(spec.full_name, results=list(results), operands=list(operands),
                             attributes=attributes, regions=spec.regions, loc=loc, ip=ip)
    return cls(op)


def builder_name(cls) -> str:
    """The builder function's name of an op class: tile.tmem.alloc -> tmem_alloc, tile.return -> ret."""
    return "ret" if cls.SPEC.name == "return" else cls.SPEC.name.replace(".", "_")


# result types the builder infers from the operands and attributes (op class -> fn(operands, attrs))
_INFER = {SubviewOp: lambda operands, attrs: SubviewOp.window_type(BufferType.of(operands[0].type),
                                                                   attrs["sizes"]).to_mlir()}
_P = inspect.Parameter


def _make_builder(cls):
    spec = cls.SPEC
    sides = [a.name[:-len("_offsets")] for a in spec.attrs if a.name.endswith("_offsets")
             and f"{a.name[:-len('_offsets')]}_sizes" in {b.name for b in spec.attrs}]
    region_attrs = {f"{s}_{w}" for s in sides for w in ("offsets", "sizes")}
    typed = [(r, f"{r.name}_type") for r in spec.results if isinstance(r.constraint, BufferOf)]
    infer = _INFER.get(cls)
    params: list[tuple[str, object]] = []  # (name, default or _P.empty), in the builder's order
    for o in spec.operands:
        params.append((o.name, () if o.variadic else None if o.optional else _P.empty))
    for _, pname in typed:
        params.append((pname, None if infer else _P.empty))
    attrs = [a for a in spec.attrs if a.name not in region_attrs]
    for a in sorted(attrs, key=lambda a: not a.required):
        default = _P.empty if a.required else None if (a.default is None or cls_attr(cls, a).elide_default) \
            else (a.enum(a.default) if a.enum else a.default)
        params.append((a.name, default))
    sig, seen_default = [], False
    for name, default in params:
        seen_default |= default is not _P.empty
        kind = _P.KEYWORD_ONLY if seen_default and default is _P.empty else _P.POSITIONAL_OR_KEYWORD
        sig.append(_P(name, kind, default=default))
    if any(p.kind is _P.KEYWORD_ONLY for p in sig):  # (keyword-only parameters must come last)
        first = next(i for i, p in enumerate(sig) if p.kind is _P.KEYWORD_ONLY)
        sig = sig[:first] + [p.replace(kind=_P.KEYWORD_ONLY) for p in sig[first:]]
    sig += [_P(f"{s}_region", _P.KEYWORD_ONLY, default=None) for s in sides]
    sig += [_P("loc", _P.KEYWORD_ONLY, default=None), _P("ip", _P.KEYWORD_ONLY, default=None)]
    signature = inspect.Signature(sig)
    positional = [p.name for p in sig if p.kind is _P.POSITIONAL_OR_KEYWORD]
    defaults = {p.name: p.default for p in sig}
    required = [p.name for p in sig if p.default is _P.empty]
    fixed_results = [None if isinstance(r.constraint, BufferOf) else r.constraint for r in spec.results]
    attr_specs = [(a.name, a) for a in attrs]
    name = builder_name(cls)
    operand_names = [o.name for o in spec.operands]

    def builder(*args, **kwargs):
        # (bound by hand: inspect.Signature.bind costs 4x the op's creation)
        if len(args) > len(positional):
            raise TypeError(f"{name}() takes {len(positional)} positional arguments, {len(args)} given")
        values = dict(defaults)
        values.update(zip(positional, args))
        for k in kwargs:
            if k not in defaults:
                raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
            if k in positional[:len(args)]:
                raise TypeError(f"{name}() got multiple values for argument '{k}'")
        values.update(kwargs)
        for k in required:
            if values[k] is _P.empty:
                raise TypeError(f"{name}() missing required argument '{k}'")
        operands = []
        for o in spec.operands:
            v = values[o.name]
            if o.variadic:
                operands.extend(v)
            elif v is not None:
                operands.append(v)
        attributes = {}
        for k, a in attr_specs:
            v = values[k]
            if v is not None:
                attributes[k] = make_attr(a, v)
        for s in sides:
            region = values[f"{s}_region"]
            if region is not None:
                attributes[f"{s}_offsets"] = make_attr(spec.attr(f"{s}_offsets"), [b for b, _ in region])
                attributes[f"{s}_sizes"] = make_attr(spec.attr(f"{s}_sizes"), [e - b for b, e in region])
        results, typed_iter = [], iter(typed)
        for c in fixed_results:
            if c is not None:
                results.append(c.get())
                continue
            t = values[next(typed_iter)[1]]
            if t is None:
                t = infer(operands, {k: values[k] for k, _ in attr_specs})
            results.append(t)
        op = ir.Operation.create(spec.full_name, results=results, operands=operands, attributes=attributes,
                                 regions=spec.regions, loc=values["loc"], ip=values["ip"])
        return op.results[0] if len(results) == 1 else cls(op)

    builder.__name__ = builder.__qualname__ = name
    builder.__signature__ = signature
    builder.__doc__ = spec.summary + ("\n\nParameters: " + ", ".join(operand_names) if operand_names else "")
    return builder


def cls_attr(cls, a):
    return getattr(cls, a.name)


BUILDERS = {cls: _make_builder(cls) for cls in OP_CLASSES if cls is not KernelOp}
globals().update({f.__name__: f for f in BUILDERS.values()})
__all__ += [f.__name__ for f in BUILDERS.values()]


@contextmanager
def kernel(module, name: str, params=(), *, block, cluster=None, grid=None, loc=None):
    """Append a tile.kernel to `module`; yields (op, block arguments) with the insertion point in its body.
    `params` are the parameters' types, or (name, type) pairs or a {name: type} dict: named parameters
    set the kernel's arg_names."""
    items = list(params.items()) if isinstance(params, dict) else list(params)
    named = [p for p in items if isinstance(p, tuple)]
    if named and len(named) != len(items):
        raise TypeError("tile.kernel parameters: give every one a name or none")
    types = [t for _, t in named] if named else items
    op = build("kernel", sym_name=name, block=block, cluster=cluster, grid=grid,
               arg_names=[n for n, _ in named] if named else None, loc=loc, ip=ir.InsertionPoint(module.body))
    body = op.regions[0].blocks.append(*types)
    with ir.InsertionPoint(body):
        yield op, list(body.arguments)


BUILDERS[KernelOp] = kernel


# -- structure around the tile ops: constants, scf.if, scf.for ---------------------------------------------
class Constants:
    """Integer constants of one type, each made once at the top of `block` (in ascending order of value, as
    a hand-written kernel hoists them): `c = Constants(body); c(0)` is the i32 0."""

    def __init__(self, block, type=None):
        self.block, self.type = block, type or ir.IntegerType.get_signless(32)
        self.values: dict[int, ir.Value] = {}

    def __call__(self, value: int):
        if value not in self.values:
            v = arith.constant(self.type, value, ip=ir.InsertionPoint.at_block_begin(self.block))
            above = [k for k in self.values if k > value]
            below = [k for k in self.values if k < value]
            if above:
                v.owner.move_before(self.values[min(above)].owner)
            elif below:
                v.owner.move_after(self.values[max(below)].owner)
            self.values[value] = v
        return self.values[value]


class when:
    """scf.if cond { ... } as a context manager, each branch closed by its scf.yield; `otherwise()` after it
    adds the else branch:

        with when(c) as branch:
            ...
        with branch.otherwise():
            ...
    """

    def __init__(self, cond, *, loc=None):
        self.op = scf.IfOp(cond, loc=loc)

    def __enter__(self):
        return self._enter(self.op.then_block).__enter__()

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)

    def otherwise(self):
        return self._enter(self.op.regions[1].blocks.append())

    @contextmanager
    def _body(self, block):
        with ir.InsertionPoint(block):
            yield self
            scf.YieldOp([])

    def _enter(self, block):
        self._ctx = self._body(block)
        return self._ctx


@contextmanager
def loop(lower, upper, step, *, loc=None):
    """scf.for %iv = lower to upper step step { ... } (no iteration arguments), closed by its scf.yield;
    yields the induction variable."""
    op = scf.ForOp(lower, upper, step, loc=loc)
    with ir.InsertionPoint(op.body):
        yield op.induction_variable
        scf.YieldOp([])
