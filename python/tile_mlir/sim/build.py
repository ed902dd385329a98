"""The Machine of one launch, built from the PTX text and the arguments: run_ptx and the pool's workers
build it alike (pool.py), and so do the tools that decode a kernel without running it (coverage/)."""
from __future__ import annotations

from .. import env as _env
from . import launch, run_args
from .ptx_parser import parse

__all__ = ["build_machine", "parse_cached"]


def build_machine(ptx, kernel, args, *, grid, block, cluster, dynamic_smem, trace, max_steps,
                  max_seconds, strict, multicast=None, device=None):
    """The Machine of a launch, its arguments bound (the text parsed once per process)."""
    from .machine import Machine  # (late: `import tile_mlir.sim` for its errors and results loads no handlers)

    max_steps, max_seconds = launch.budget(max_steps, max_seconds)
    if strict is None:
        strict = _env.flag("TILE_MLIR_SIM_STRICT")
    grid, block = launch.dim3(grid, "grid"), launch.dim3(block, "block")
    module = parse_cached(ptx)
    fn = module.entry(kernel)
    run_args.check_args(fn, args)
    args = list(args)
    m = Machine(module, fn, grid=grid, block=block, cluster=launch.cluster_of(fn, cluster),
                dynamic_smem=int(dynamic_smem), strict=strict, trace=trace, max_steps=max_steps,
                max_seconds=max_seconds, args=args, device=launch.device_of(module.target, device))
    m.bind_args(args)
    if multicast:  # the multicast objects of multimem.* (handlers/multimem.py)
        from .handlers.multimem import bind_multicast  # (late: as Machine above)
        bind_multicast(m, args, multicast)
    return m


_PARSED: dict = {}


def parse_cached(ptx: str):
    """parse(ptx), kept for the last few texts of the process (a kernel launched again, or a
    worker's next range of clusters, parses nothing)."""
    mod = _PARSED.get(ptx)
    if mod is None:
        if len(_PARSED) >= 8:
            _PARSED.pop(next(iter(_PARSED)))
        mod = _PARSED[ptx] = parse(ptx)
    return mod
