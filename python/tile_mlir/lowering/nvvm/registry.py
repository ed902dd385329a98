"""The lowerings of plain tile ops: each is a dispatch (dispatch.py) with one variant, VARIANT, registered by
@lowers(<class>) and run by convert-tile-to-nvvm on the walk driver the dispatched ops use
(lowering/dispatch_pass.py). The function is called fn(k, op, em): k the KernelLowering of the op's kernel
(its buffer-value converter is k.buffers), op the op's typed view (dialect/ops), em an Emitter before it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..dispatch import TARGET, register_dispatch, variants
from ..errors import LoweringError

__all__ = ["lowers", "lowering_of", "LoweringCtx", "LoweringError", "VARIANT"]

VARIANT = "nvvm"  # the one variant of a plain op


@dataclass(frozen=True)
class LoweringCtx:
    """What a plain op's variant sees: its kernel's lowering, its typed view and an emitter before it."""

    kernel: Any
    view: Any
    em: Any
    target: Any = None  # the chip's ArchInfo (what the variant's predicates check)
    pinned: None = None  # (a plain op has one variant: nothing to pin)


def lowers(cls, when=()):
    """Register the decorated function fn(k, op, em) as the one variant lowering tile op class `cls`, taken
    when its predicates `when` (dispatch.predicate(name, fn(op, ctx)), e.g. on ctx.target) hold; a second
    lowering of the same class is a ValueError."""
    def register(fn: Callable) -> Callable:
        def variant(op, ctx: LoweringCtx):
            fn(ctx.kernel, ctx.view, ctx.em)
            return True  # (returning nothing would count as declining)

        variant.lowering = fn
        register_dispatch(cls.OPERATION_NAME, TARGET, variant=VARIANT, when=when)(variant)
        return fn

    return register


def lowering_of(cls) -> Callable | None:
    """The function registered by @lowers(cls), or None."""
    cases = [c for c in variants(cls.OPERATION_NAME, TARGET) if c.variant == VARIANT]
    return cases[0].impl.lowering if cases else None
