"""Dominance in a tile.kernel body: every operand is defined before its use.

MLIR's verifier treats the region of an unregistered op (tile.kernel is one) as a graph region: it
checks neither that definitions dominate uses there nor that the region is isolated from above, and
nor, through it, for the regions nested inside. The lowering moves the body into an llvm.func, where
a use before the definition (or of a value from outside) would dangle. So the verifier walks the
kernel in program order with the set of values in scope: the arguments of the enclosing blocks and
the results of the ops before the use in them. Regions of several blocks are left to MLIR's own
check (their blocks see each other's values here), which it does for the registered ops that have them.
"""
from __future__ import annotations

__all__ = ["undominated_uses", "defined_inside"]


def undominated_uses(kernel) -> list[tuple[object, int]]:
    """(op, operand index) of each operand in the kernel's body that is not in scope at its use."""
    bad: list = []
    scope: set = set()

    def block(b):
        """Check b's ops in order; yield each nested block, to be checked before going on."""
        added = [v for v in b.arguments if v not in scope]  # (in scope: a multi-block region's)
        scope.update(added)
        for op in b.operations:
            op = op.operation
            for i, v in enumerate(op.operands):
                if v not in scope:
                    bad.append((op, i))
            for region in op.regions:
                blocks = list(region.blocks)
                shared = [v for v in _defined_in(blocks) if v not in scope] if len(blocks) > 1 else []
                scope.update(shared)
                yield from blocks
                scope.difference_update(shared)
            results = [r for r in op.results if r not in scope]  # (in scope: a multi-block region's)
            scope.update(results)
            added += results
        scope.difference_update(added)

    # a trampoline, not recursion: nesting as deep as the text allows stays far from Python's limit
    stack = [block(kernel.regions[0].blocks[0])]
    while stack:
        inner = next(stack[-1], None)
        if inner is None:
            stack.pop()
        else:
            stack.append(block(inner))
    return bad


def _defined_in(blocks) -> list:
    """The values the top level of a multi-block region defines: its blocks' arguments and results."""
    out = []
    for b in blocks:
        out.extend(b.arguments)
        for op in b.operations:
            out.extend(op.operation.results)
    return out


def defined_inside(op, value) -> bool:
    """Whether `value` is defined in a region of `op` (at any depth)."""
    owner = value.owner
    p = owner.owner if hasattr(owner, "arguments") else owner  # a block argument's block -> its op
    while p is not None:
        p = p.operation
        if p == op:
            return True
        p = p.parent
    return False
