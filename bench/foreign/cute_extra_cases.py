"""More CuTe DSL examples of the foreign corpus, driven as cute_cases.py drives its own (through
cute_generic.py: static fake tensors, pointers and scalars; each case its buffers, its numpy
reference from the inputs and, for approximate math, its tolerance and why)."""
from __future__ import annotations

import numpy as np

from cute_cases import case, fake


def ew_add_autotune(M, N, copy_bits=128):
    """ampere/tutorial/elementwise_add_autotune.py's ``ElementwiseAddWrapper`` (the class its
    tuner compiles) at one of the tuner's candidates: C = A + B in f16, M and N not multiples of
    the (16, 256) tile, so the predicates on the coordinate tensor decide the edge tiles; inputs
    small integers (the sums exact)."""
    def build(rng):
        a = rng.integers(-64, 65, (M, N)).astype(np.float16)
        b = rng.integers(-64, 65, (M, N)).astype(np.float16)
        return [("a", a), ("b", b), ("c", np.zeros((M, N), np.float16))], {"c": a + b}

    def setup(mod, cute, cutlass, bufs):
        fk = [fake(cute, cutlass, a) for _, a in bufs]
        return (mod.ElementwiseAddWrapper(copy_bits), fk + [M, N],
                [("ptr", n) for n, _ in bufs] + [("i32", M), ("i32", N)])
    return case("ampere_elementwise_add_autotune",
                "ampere/tutorial/elementwise_add_autotune.py", "sm_80", dict(M=M, N=N,
                                                                              copy_bits=copy_bits),
                build, setup, ["a", "b"], ["c"], "numpy float16 A + B of integer inputs (exact)")


def cases(size):
    s = 1 if size == "small" else 4
    return [ew_add_autotune(20 * s, 200)]
