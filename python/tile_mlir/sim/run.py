"""run_ptx and run_launches: one launch, or a sequence of them as one stream runs them."""

from __future__ import annotations

from . import findings, gc_budget, launch, pool, run_args
from .build import build_machine
from .errors import EmulationError
from .progress import bar_for
from .result import SimResult


@gc_budget.during
def run_ptx(ptx: str, kernel: str | None, args: list, *, grid=(1, 1, 1), block=(128, 1, 1),
            cluster=None, dynamic_smem: int = 0, trace: bool = False,
            max_steps: int | None = None, max_seconds: float | None = None,
            strict: bool | None = None, workers: int | None = None, executor=None,
            progress: bool | None = None, multicast=None, explore: int | None = None, seed: int = 0,
            check=None, device: str | None = None, replay=None, systematic: int | None = None,
            explore_clusters: int | None = None, explore_seconds: float | None = None):
    """Emulate kernel ``kernel`` (the only ``.entry`` if None) of PTX text ``ptx``.

    A :class:`ByValue` binds a by-value struct parameter whose pointer fields address arrays (a
    tensor passed with its run-time layout); arguments that are the same array share one
    allocation.

    The launch is checked as the driver checks it: the block against the kernel's ``.reqntid`` /
    ``.maxntid``, the cluster (the kernel's ``.reqnctapercluster`` when None) against its cluster
    directives; and against tile-sim's caps (``launch.py``: CTAs, shared and local memory,
    registers, memory in all).

    ``args``: one per ``.param`` in order.  A numpy array binds a 64-bit pointer parameter to a
    fresh global allocation holding a copy of its bytes; after the run the array is updated in
    place.  Python ints bind scalar parameters, floats bind ``.f32``/``.f64`` parameters.  A
    :class:`TensorMap` binds a ``.param .align 64 .b8 name[128]`` tensor-map parameter; its array
    shares the allocation of the pointer argument that is the same object (docs/emulator.md §9).

    ``strict``: in strict mode ordering violations (missing fence.proxy.async before a tcgen05.cp
    or TMA reads generic-proxy stores, tcgen05.ld of MMA / cp results without commit + mbarrier
    wait + tcgen05.fence::after_thread_sync, reading a tcgen05.ld destination before
    tcgen05.wait::ld, kernel exit with TMEM allocated or copies not waited for) raise
    EmulationError.  Lenient mode (``strict=False``) runs them with the effect the hardware gives
    and lists each broken rule on ``SimResult.findings`` (sim/findings.py), as a sanitizer reports
    (and in ``warnings``); faults (out of bounds, misalignment, deadlock, unallocated TMEM, a race
    whose access overlaps an in-flight copy's bytes) stop the run in both modes.
    The default (None) is lenient, for foreign PTX, such as NVIDIA's CuTe DSL kernels, that breaks
    ISA rules it gets away with on silicon; env TILE_MLIR_SIM_STRICT=1 makes it strict (the test
    suite sets it) and ``jit()``'s sim backend passes strict=True for the kernels we compile.

    Budgets (docs/emulator.md §3): ``max_steps`` warp-instructions (default: scaled from the grid,
    the block and the kernel's instruction count; env TILE_MLIR_SIM_MAX_STEPS) and ``max_seconds``
    of wall-clock time (default none; env TILE_MLIR_SIM_MAX_SECONDS).  Deadlocks are detected
    exactly; the budgets bound livelocks, and the error says where the warps spin.

    ``workers`` (default every core, env TILE_MLIR_SIM_WORKERS): processes that run clusters which
    do not communicate, with a result bit-identical to a serial run; ``executor``: any
    ``concurrent.futures.Executor`` to run them on instead (a dask.distributed client's).
    ``progress``: a progress bar on stderr for runs over 2 s (default: when stderr is a terminal
    and TILE_MLIR_SIM_PROGRESS is not 0).  ``trace`` (or env TILE_MLIR_SIM_TRACE=1) prints every step to
    stderr.  ``multicast``: the multicast objects of multimem.* (handlers/multimem.py), each a tuple of
    argument indices of equal-size arrays, its replicas; the first one's addresses are its multimem
    addresses (default: every global address is a multicast object of one replica).

    ``device``: the GPU emulated, ``"sm_90"`` and so on (default: env TILE_MLIR_SIM_DEVICE, else the
    module's ``.target``; ``launch.device_of`` checks the driver would load the PTX on it).  The ISA
    leaves mma.sync's floating-point arithmetic to the GPU, so a module for sm_80 run on an H100
    computes as Hopper does: pass ``device="sm_90"`` to compare with one.

    ``explore=N``: run the launch under its default schedule, then under N schedules drawn from
    ``seed`` (sim/explore/), and return an :class:`~tile_mlir.sim.explore.ExploreResult`: the
    schedules run, the first failing schedule (deadlock, race, new finding, outputs other than
    the default schedule's, or ``check(args)`` false), its report and its minimised form; the
    arrays given are left as they were; ``workers`` > 1 runs schedules on the process pool, or
    ``executor`` on any Executor (a dask.distributed client's); the default runs them on the pool
    of every core when they would take a second or more, else in this process.  Schedule ``i`` replays with
    ``tile_mlir.sim.explore.replay(..., seed=seed, index=i)``, or ``replay=(seed, i)`` here (an
    ExploreResult of that one schedule).  ``systematic=N``: instead of sampling, every order of the
    launch's synchronisation operations up to a partial-order reduction, at most N schedules
    (sim/explore/systematic.py; docs/emulator.md §15 says what a clean run proves).
    ``explore_clusters=K``: under exploration, launch only the first K clusters of the grid (the
    default schedule's reference too): clusters run one after another and never interleave, so a
    large grid's schedules are those of its clusters, explored K at a time.
    ``explore_seconds``: stop drawing schedules after that long (``schedules`` says how many ran).
    """
    if explore is not None or replay is not None or systematic is not None:
        # (late: explore/ loads the handlers; `import tile_mlir.sim` loads none)
        from .explore import explore_launch, replay_launch, systematic_launch
        kw = dict(check=check, progress=progress, grid=grid, block=block, cluster=cluster,
                  dynamic_smem=dynamic_smem, max_steps=max_steps, max_seconds=max_seconds,
                  strict=strict, device=device, clusters=explore_clusters)
        if replay is not None:
            return replay_launch(ptx, kernel, args, replay, **kw)
        if systematic is not None:
            return systematic_launch(ptx, kernel, args, n=systematic, **kw)
        return explore_launch(ptx, kernel, args, n=explore, seed=seed, workers=workers,
                              executor=executor, seconds=explore_seconds, **kw)
    run_args.check_options(grid=grid, block=block, cluster=cluster, dynamic_smem=dynamic_smem, max_steps=max_steps,
                           max_seconds=max_seconds, trace=trace, strict=strict, args=args, workers=workers,
                           progress=progress, executor=executor)
    explicit = workers is not None or executor is not None
    workers = pool.default_workers(workers)
    grid, block = launch.dim3(grid, "grid"), launch.dim3(block, "block")
    launch_kw = dict(grid=grid, block=block, cluster=cluster, dynamic_smem=dynamic_smem,
                     trace=trace, max_steps=max_steps, max_seconds=max_seconds, strict=strict,
                     multicast=multicast, device=device)
    args = list(args)
    m = build_machine(ptx, kernel, args, **launch_kw)
    with bar_for(m, progress) as bar:
        pool.run_parallel(m, ptx, kernel, args, launch_kw, workers=workers, executor=executor,
                          explicit=explicit, bar=bar)
    m.copy_back()
    n = m.grid[0] * m.grid[1] * m.grid[2]
    return SimResult(tmem=[m.kept[i][0] for i in range(n)], steps=m.steps,
                     warnings=list(m.warnings), shared=[m.kept[i][1] for i in range(n)],
                     findings=findings.collected(m, ptx), schedule=m.schedule)


# ------------------------------------------------------------------------------- launch sequences
def run_launches(launches: list[dict], **common) -> list:
    """Run a sequence of launches as one stream runs them: each a dict of :func:`run_ptx`'s
    arguments (``ptx``, ``kernel``, ``args``, ``grid``, ...; ``common`` fills what a dict leaves
    out).  A numpy array given to several launches is one buffer: each launch sees the stores of
    the launches before it.

    Programmatic dependent launch (``griddepcontrol``): a launch may begin once every CTA of the
    one before it has executed ``griddepcontrol.launch_dependents`` or exited, and its
    ``griddepcontrol.wait`` returns once that one has completed with its memory visible.  tile-sim
    runs each launch to completion before the next begins, a schedule the ISA allows, in which
    every ``griddepcontrol.wait`` returns at once; a launch (``"programmatic": True``) that reads
    its predecessor's results before its wait is therefore not reported here (docs/emulator.md)."""
    results = []
    for i, spec in enumerate(launches):
        kw = {**common, **spec}
        kw.pop("programmatic", None)
        try:
            ptx, kernel, args = kw.pop("ptx"), kw.pop("kernel", None), kw.pop("args")
        except KeyError as e:
            raise EmulationError(f"launch {i} of the sequence has no {e.args[0]!r}") from None
        results.append(run_ptx(ptx, kernel, args, **kw))
    return results
