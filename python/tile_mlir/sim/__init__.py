"""tile-sim: a bit-exact CPU emulator of the PTX that tile_mlir emits for sm_100a (tcgen05).

It executes real PTX text for one CTA, or a cluster of CTAs (``cta_group::2`` pairs), and checks
the rules of the PTX ISA on the way: every illegal behaviour raises :class:`EmulationError` naming
the PTX line, the instruction and the CTA / warp / lane.

Usage::

    from tile_mlir.sim import run_ptx
    res = run_ptx(ptx, "kern", [out_array, 42], block=(128, 1, 1))
    res.tmem[0]        # (128, 512) uint32 TMEM of CTA 0 as of its last dealloc
    out_array          # updated in place from the emulated global memory

Independence: this package imports nothing from tile_mlir.layout / dialect / lowering / mlir; its
swizzle and descriptor decode are written from the PTX ISA on their own (design.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import EmulationError
from .ptx_parser import parse

__all__ = ["run_ptx", "EmulationError", "SimResult"]


@dataclass
class SimResult:
    tmem: list  # per CTA: (128, 512) uint32, contents as of the last dealloc of each column range
    steps: int  # warp-instructions executed
    warnings: list = field(default_factory=list)
    shared: list = field(default_factory=list)  # per CTA: final shared memory bytes (uint8)


def run_ptx(ptx: str, kernel: str | None, args: list, *, grid=(1, 1, 1), block=(128, 1, 1),
            cluster=(1, 1, 1), dynamic_smem: int = 0, trace: bool = False,
            max_steps: int = 5_000_000, strict: bool = True) -> SimResult:
    """Emulate kernel ``kernel`` (the only ``.entry`` if None) of PTX text ``ptx``.

    ``args``: one per ``.param`` in order.  A numpy array binds a 64-bit pointer parameter to a
    fresh global allocation holding a copy of its bytes; after the run the array is updated in
    place.  Python ints bind scalar parameters, floats bind ``.f32``/``.f64`` parameters.

    ``strict`` (default True): races and ordering violations (missing fence.proxy.async before a
    tcgen05.cp reads generic-proxy stores, tcgen05.ld of cp results without commit + mbarrier wait +
    tcgen05.fence::after_thread_sync, stores into smem an in-flight cp reads, kernel exit with TMEM
    allocated) raise EmulationError; with ``strict=False`` they become warnings.

    ``max_steps`` bounds the number of warp-instructions (deadlocks are detected exactly; this
    bounds livelocks).  ``trace`` (or env TILE_EMU_TRACE=1) prints every step to stderr.
    """
    from .machine import Machine

    grid, block, cluster = (_dim3(x, n) for x, n in ((grid, "grid"), (block, "block"),
                                                    (cluster, "cluster")))
    module = parse(ptx)
    fn = module.entry(kernel)
    m = Machine(module, fn, grid=grid, block=block, cluster=cluster,
                dynamic_smem=int(dynamic_smem), strict=strict, trace=trace, max_steps=max_steps)
    m.bind_args(list(args))
    m.run()
    m.copy_back()
    tm = []
    for c in m.ctas_all:
        tm.append(c.tmem.snapshot.copy())
    shared = [np.frombuffer(bytes(c.smem.buf), dtype=np.uint8).copy() for c in m.ctas_all]
    return SimResult(tmem=tm, steps=m.steps, warnings=list(m.warnings), shared=shared)


def _dim3(x, name):
    if isinstance(x, int):
        x = (x,)
    x = tuple(int(v) for v in x) + (1,) * (3 - len(tuple(x)))
    if len(x) != 3 or any(v < 1 for v in x):
        raise EmulationError(f"bad {name} dimensions {x}")
    return x
