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
swizzle and descriptor decode are written from the PTX ISA on their own (docs/emulator.md §2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import launch, run_args
from .errors import EmulationError
from .ptx_parser import parse
from .tensor_map import TensorMap

__all__ = ["run_ptx", "EmulationError", "SimResult", "TensorMap"]


@dataclass
class SimResult:
    #: per CTA: (128, 512) uint32, contents as of the last dealloc of each column range (a CTA that
    #: never used tensor memory shares one read-only array of the poison pattern)
    tmem: list
    steps: int  # warp-instructions executed
    warnings: list = field(default_factory=list)
    shared: list = field(default_factory=list)  # per CTA: final shared memory bytes (uint8)


def run_ptx(ptx: str, kernel: str | None, args: list, *, grid=(1, 1, 1), block=(128, 1, 1),
            cluster=None, dynamic_smem: int = 0, trace: bool = False,
            max_steps: int = launch.DEFAULT_MAX_STEPS, max_seconds: float | None = None,
            strict: bool = True) -> SimResult:
    """Emulate kernel ``kernel`` (the only ``.entry`` if None) of PTX text ``ptx``.

    The launch is checked as the driver checks it: the block against the kernel's ``.reqntid`` /
    ``.maxntid``, the cluster (the kernel's ``.reqnctapercluster`` when None) against its cluster
    directives; and against tile-sim's caps (``launch.py``: CTAs, shared and local memory,
    registers, memory in all).

    ``args``: one per ``.param`` in order.  A numpy array binds a 64-bit pointer parameter to a
    fresh global allocation holding a copy of its bytes; after the run the array is updated in
    place.  Python ints bind scalar parameters, floats bind ``.f32``/``.f64`` parameters.  A
    :class:`TensorMap` binds a ``.param .align 64 .b8 name[128]`` tensor-map parameter; its array
    shares the allocation of the pointer argument that is the same object (docs/emulator.md §9).

    ``strict`` (default True): races and ordering violations (missing fence.proxy.async before a
    tcgen05.cp reads generic-proxy stores, tcgen05.ld of cp results without commit + mbarrier wait +
    tcgen05.fence::after_thread_sync, stores into smem an in-flight cp reads, kernel exit with TMEM
    allocated) raise EmulationError; with ``strict=False`` they become warnings.

    ``max_steps`` bounds the number of warp-instructions and ``max_seconds`` (default 20, or env
    TILE_SIM_MAX_SECONDS) the wall-clock time: deadlocks are detected exactly, these bound
    livelocks, and the error says where the warps spin.  ``trace`` (or env TILE_EMU_TRACE=1)
    prints every step to stderr.
    """
    from .machine import Machine

    run_args.check_options(grid=grid, block=block, cluster=cluster, dynamic_smem=dynamic_smem, max_steps=max_steps,
                           max_seconds=max_seconds, trace=trace, strict=strict, args=args)
    grid, block = launch.dim3(grid, "grid"), launch.dim3(block, "block")
    module = parse(ptx)
    fn = module.entry(kernel)
    run_args.check_args(fn, args)
    args = list(args)
    m = Machine(module, fn, grid=grid, block=block, cluster=launch.cluster_of(fn, cluster),
                dynamic_smem=int(dynamic_smem), strict=strict, trace=trace, max_steps=max_steps,
                max_seconds=max_seconds, args=args)
    m.bind_args(args)
    m.run()
    m.copy_back()
    return SimResult(tmem=m.tmem_out, steps=m.steps, warnings=list(m.warnings),
                     shared=m.shared_out)
