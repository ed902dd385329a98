"""The dispatch registry: which variant lowers an op, and why the others did not.

    @register_dispatch("copy_async", "cuda", variant="smem->tmem", priority=10,
                       when=[predicate("validate_smem_tmem_copy", fn), predicate("exec_scope", fn2)])
    def impl(op, ctx): ...

`moves` names the (source, destination) memory pairs a variant handles (none: any); dispatch(...,
moves=(src, dst)) skips the variants of other pairs, and a failure lists only those that apply (every
variant with all_variants). Variants of (op, target) are tried by (-priority, name). A predicate returns a bool, (bool, reason), or
raises Decline; a variant's impl may decline by raising Decline(check, reason) (dialect/decline.py, the
planners' and the verifier's one exception). A `dispatch = "<variant>"` attribute on the op restricts it
to that variant. When every variant fails, the caller gets one Rejection table (one row per variant) to
report as a single error at the op. Only Decline means "does not apply": any other exception is a bug
and propagates, tagged with the variant name.
There is no generic fall-through.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..dialect.decline import Decline
from ..errors import TileMLIRError

__all__ = ["predicate", "register_dispatch", "dispatch", "variants", "Rejection", "DispatchError", "TARGET"]

TARGET = "cuda"  # the target key of every variant registered so far


@dataclass(frozen=True)
class Predicate:
    name: str
    fn: Callable[..., Any]

    def __call__(self, op, ctx) -> tuple[bool, str]:
        try:
            r = self.fn(op, ctx)
        except Decline as e:
            return False, e.reason
        if isinstance(r, tuple):
            ok, reason = r
            return bool(ok), reason or ""
        return bool(r), "" if r else "predicate returned False"


def predicate(name: str, fn: Callable[..., Any]) -> Predicate:
    return Predicate(name, fn)


@dataclass(frozen=True)
class Case:
    op: str
    target: str
    variant: str
    priority: int
    when: tuple[Predicate, ...]
    impl: Callable[..., Any]
    moves: tuple[tuple[str, str], ...] = ()  # the (src, dst) memory pairs it handles; () = any

    def handles(self, pair: tuple[str, str] | None) -> bool:
        return pair is None or not self.moves or pair in self.moves


_REGISTRY: dict[tuple[str, str], list[Case]] = {}


def register_dispatch(op: str, target: str, *, variant: str, priority: int = 0, when=(), moves=()):
    def deco(impl):
        cases = _REGISTRY.setdefault((op, target), [])
        if any(c.variant == variant for c in cases):
            raise ValueError(f"variant '{variant}' of {op}/{target} is registered twice")
        cases.append(Case(op, target, variant, priority, tuple(when), impl, tuple(tuple(m) for m in moves)))
        cases.sort(key=lambda c: (-c.priority, c.variant))
        return impl

    return deco


def variants(op: str, target: str) -> list[Case]:
    return list(_REGISTRY.get((op, target), ()))


@dataclass
class Rejection:
    variant: str
    kind: str  # "rejected" | "declined" | "not registered" | "other pair" (moves other memory)
    check: str
    reason: str

    def format(self) -> str:
        if self.kind == "other pair":
            return f"{self.variant}: not for this memory pair: moves {self.reason}"
        if self.kind == "rejected":
            return f"{self.variant}: rejected: {self.check} - {self.reason}"
        if self.kind == "declined":
            return f"{self.variant}: declined: {self.check + ' - ' if self.check else ''}{self.reason}"
        return f"{self.variant}: {self.kind}: {self.reason}"


@dataclass
class DispatchError(TileMLIRError):
    op: str
    target: str
    rejections: list[Rejection] = field(default_factory=list)
    pinned: str | None = None
    pair: tuple[str, str] | None = None  # the op's (src, dst) memory, when its variants are by pair

    def message(self, all_variants: bool = False) -> str:
        """The table: without all_variants, only the variants that handle the op's memory pair (all of
        them when none does)."""
        if not self.rejections:
            return f"no variant of {self.op} is registered for target '{self.target}'"
        rows = self.rejections
        shown = rows if all_variants else [r for r in rows if r.kind != "other pair"] or rows
        moving = f" to {self.pair[0]} -> {self.pair[1]}" if self.pair else ""
        head = f"no {self.op} variant applies{moving}"
        head += f" (dispatch = \"{self.pinned}\")" if self.pinned else ""
        text = head + ":\n" + "\n".join("  " + r.format() for r in shown)
        hidden = len(rows) - len(shown)
        if hidden:
            text += f"\n  ({hidden} variant{'s' * (hidden > 1)} for other memory pairs not shown; the pass option all-variants=1 lists them)"
        return text

    def __str__(self) -> str:
        return self.message()


def dispatch(op_name: str, target: str, op, ctx, *, pinned: str | None = None,
             moves: tuple[str, str] | None = None, tried: list | None = None):
    """Run the first applicable variant's impl; return (variant, result) or raise DispatchError.
    `moves`: the op's (src, dst) memory; a variant registered for other pairs is skipped (unless pinned).
    `tried`, a list, receives the Rejection of each variant tried before the one chosen."""
    cases = _REGISTRY.get((op_name, target), ())  # read only: no copy (dispatch runs once per op)
    rejections: list[Rejection] = [] if tried is None else tried
    if pinned is not None and not any(c.variant == pinned for c in cases):
        known = ", ".join(c.variant for c in cases) or "none"
        raise DispatchError(op_name, target, [Rejection(pinned, "not registered",
                                                        "", f"known variants: {known}")], pinned, moves)
    for case in cases:
        if pinned is not None and case.variant != pinned:
            continue
        if pinned is None and not case.handles(moves):
            rejections.append(Rejection(case.variant, "other pair", "", _pairs(case.moves)))
            continue
        failed = None
        for p in case.when:
            ok, reason = p(op, ctx)
            if not ok:
                failed = Rejection(case.variant, "rejected", p.name, reason)
                break
        if failed:
            rejections.append(failed)
            continue
        try:
            result = case.impl(op, ctx)
        except Decline as e:
            rejections.append(Rejection(case.variant, "declined", e.check, e.reason))
            continue
        except Exception as e:
            e.add_note(f"in {op_name} variant '{case.variant}'")
            raise
        if result is None:
            rejections.append(Rejection(case.variant, "declined", "", "impl returned nothing"))
            continue
        return case.variant, result
    raise DispatchError(op_name, target, rejections, pinned, moves)


def _pairs(moves) -> str:
    return ", ".join(f"{s} -> {d}" for s, d in moves)
