"""A scoped op against its kernel's CTA: the threads a scope names must exist in the block.

A tile op whose `scope` is `warp` runs as one warp (32 lanes), `warpgroup` as four warps (128 threads,
lanes 0-127 of tensor memory for tmem ops). In a smaller CTA the missing threads do not run their
part: a warpgroup copy in a 32-thread CTA copied a quarter of the tile, a warp copy in 16 threads
half, a warpgroup tile.tmem.load in one warp wrote rows 0-31 only, all without a word. The verifier
calls check_scope for every op (one hook line in verifier.verify_op).
"""
from __future__ import annotations

from .checks import KernelFacts
from .decline import fail
from .enums import Scope
from .op_def import read_attr

__all__ = ["SCOPE_THREADS", "check_scope"]

#: threads a scope spans (PTX: a warp is 32 threads, a warpgroup 4 contiguous warps)
SCOPE_THREADS = {Scope.WARP: 32, Scope.WARPGROUP: 128}


def check_scope(op, spec, kernel: KernelFacts) -> None:
    """fail("scope", ...) when `op`'s scope spans more threads than the kernel's block has (after the generic
    checks: the attribute, read through the op's field, is a Scope)."""
    field = next((a for a in spec.attrs if a.name == "scope"), None)
    if kernel.threads is None or field is None:
        return
    scope = read_attr(op, field)
    need = SCOPE_THREADS.get(scope)
    if need is not None and kernel.threads < need:
        fail("scope", f"scope {scope} spans {need} threads (lanes 0-{need - 1}), but the kernel's block has "
                      f"{kernel.threads}: the missing threads' part of the op would not run")
