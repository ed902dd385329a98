"""Write tile kernels in Python: the public builders (docs/tutorial.md writes each step this way too).

    from tile_mlir import builders as tb

    with tb.module() as m:
        with tb.kernel(m, "copy", {"A": tb.buffer_t("global", (32, 16), "ui8"),
                                   "out": tb.buffer_t("global", (32, 16), "ui8")}, block=(128, 1, 1)) as (_, (a, out)):
            smem = tb.alloc_shared(tb.buffer_t("shared", (32, 16), "ui8"))
            tb.copy(smem, a)
            tb.barrier()
            tb.copy(out, smem)
            tb.ret()
    kernel = tile_mlir.jit(m.module)        # or tile_mlir.compile(m.module), print(m.module)

Every tile op has a builder named after it, "." as "_" (tile.tmem.alloc: `tmem_alloc`, tile.mbarrier.
wait_parity: `mbarrier_wait_parity`, tile.return: `ret`), taking the operands, then the attributes as Python
values (dialect/builders.py says how). Around them: `const(0)` (an i32 constant; `const(1, "i64")`,
`const(True)` an i1), the integer comparisons `eq ne lt le gt ge` (signed; `ult ule ugt uge` unsigned) and
arithmetic `add sub mul div rem` (unsigned div/rem, as the indices of a kernel are), `when(cond)` for scf.if
(`.otherwise()` for its else) and `loop(lo, hi, step)` for scf.for. The fences the PTX memory model asks for
are the compiler's, as for IR text (docs/fences.md), `fence.mbarrier_init` after a run of mbarrier.init
included.
"""
from __future__ import annotations

import inspect
from contextlib import contextmanager

from .frontend.context import make_context
from .dialect import builders as _b
from .dialect.builders import BUILDERS, buffer_t, kernel, loop, ret, when
from .mlir import arith, ir
from .opt.param_print import kernel_param_names, with_param_names

__all__ = ["module", "Module", "kernel", "buffer_t", "ret", "when", "loop", "const", "eq", "ne", "lt", "le",
           "gt", "ge", "ult", "ule", "ugt", "uge", "add", "sub", "mul", "div", "rem", "ir"]

_TYPES = {"i1": lambda: ir.IntegerType.get_signless(1), "i32": lambda: ir.IntegerType.get_signless(32),
          "i64": lambda: ir.IntegerType.get_signless(64), "index": lambda: ir.IndexType.get(),
          "f32": lambda: ir.F32Type.get()}


class Module:
    """What ``module()`` yields: ``module`` (the ir.Module being built), ``context``; ``str()`` is its IR with
    the kernels' parameters by name (%A, as tile-opt prints them: param_print.py)."""

    def __init__(self, context, module):
        self.context, self.module = context, module

    @property
    def body(self):
        return self.module.body

    def __str__(self) -> str:
        return with_param_names(str(self.module), kernel_param_names(self.module))


@contextmanager
def module(context=None, *, file: str | None = None):
    """A fresh MLIR context (tile_mlir's: the tile dialect allowed, the upstream dialects loaded) and an empty
    module, entered with an unknown location (``file``: ops are located at the line of the Python statement
    that builds them, so a diagnostic or a tile-sim fault names that line). Yields a :class:`Module`."""
    ctx = context or make_context()
    with ctx, ir.Location.unknown():
        m = Module(ctx, ir.Module.create())
        if file is None:
            yield m
        else:
            with _PythonLines(file):
                yield m


class _PythonLines:
    """Locate each built op at the caller's line in ``file`` (the builders' `loc=None` reads the location
    context, so entering one per call is not possible; the ops are relocated as they are made instead)."""

    def __init__(self, file: str):
        self.file = file

    def __enter__(self):
        _LOCATING.append(self.file)
        return self

    def __exit__(self, *exc):
        _LOCATING.pop()


_LOCATING: list[str] = []


def _here():
    """The location of the innermost caller frame in the file being located (None when not locating)."""
    if not _LOCATING:
        return None
    file = _LOCATING[-1]
    frame = inspect.currentframe()
    while frame is not None and frame.f_code.co_filename != file:
        frame = frame.f_back
    return ir.Location.file(file, frame.f_lineno, 1) if frame is not None else None


def _type(t):
    if isinstance(t, str):
        if t not in _TYPES:
            raise ValueError(f"const type must be one of {', '.join(_TYPES)} or an MLIR type, got {t!r}")
        return _TYPES[t]()
    return t


def const(value, type="i32"):
    """A constant (arith.constant): ``const(0)`` is an i32 0, ``const(1, "i64")`` an i64, ``const(3, "index")``
    an index, ``const(True)`` an i1, ``const(0.5, "f32")`` an f32 (a tile.reg op's scalar; a Python float
    is an f32 unless a type is given)."""
    if isinstance(value, bool):
        type = "i1"
        value = int(value)
    elif isinstance(value, float) and type == "i32":
        type = "f32"
    if type == "f32":
        value = float(value)
    return arith.constant(_type(type), value, loc=_here())


def _cmp(pred):
    def cmp(a, b):
        return arith.cmpi(pred, _value(a), _value(b), loc=_here())
    return cmp


def _value(v):
    return const(v) if isinstance(v, int) else v


eq, ne = _cmp(arith.CmpIPredicate.eq), _cmp(arith.CmpIPredicate.ne)
lt, le, gt, ge = (_cmp(getattr(arith.CmpIPredicate, p)) for p in ("slt", "sle", "sgt", "sge"))
ult, ule, ugt, uge = (_cmp(getattr(arith.CmpIPredicate, p)) for p in ("ult", "ule", "ugt", "uge"))


def _arith(cls_name: str):
    def op(a, b):
        return getattr(arith, cls_name)(_value(a), _value(b), loc=_here()).result
    op.__name__ = cls_name
    return op


add, sub, mul = _arith("AddIOp"), _arith("SubIOp"), _arith("MulIOp")
div, rem = _arith("DivUIOp"), _arith("RemUIOp")


def _located(builder):
    """The tile op builder, its op located at the caller's Python line under module(file=...)."""
    def call(*args, **kwargs):
        if kwargs.get("loc") is None and _LOCATING:
            kwargs["loc"] = _here()
        return builder(*args, **kwargs)
    call.__name__ = call.__qualname__ = builder.__name__
    call.__signature__ = inspect.signature(builder)
    call.__doc__ = builder.__doc__
    return call


for _f in BUILDERS.values():
    if _f is not kernel:
        globals()[_f.__name__] = _located(_f)
        __all__.append(_f.__name__)
del _f, _b
