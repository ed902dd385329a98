"""Running a launch's clusters on every core: the first cluster in this process, the others, when
the run is long enough to gain from it, in worker processes (docs/emulator.md §3).

Clusters that do not communicate give the same result in any order, so each worker runs a
contiguous range of them from the launch's initial memory and sends back what they changed: the
bytes of each bound array that differ from the initial ones, each CTA's tensor and shared memory,
its step count and warnings.  The changes are applied in cluster order, as the serial run would
have made them, so the result is bit-identical to a serial run; the first fault in cluster order
is raised, naming its CTA, as the serial run would raise it.  A kernel that may communicate across
clusters through global memory (atomics, reductions, gpu- or system-scope fences and
acquire/release accesses, volatile accesses) runs serially.  How a launch ran is said on
``SimResult.schedule`` and the progress line; a serial run asked for more workers warns.

The pool is any ``concurrent.futures.Executor`` (``executor=``: a dask.distributed client's
executor spreads a grid over machines); by default a process pool of ``workers`` processes
(default: every core, or TILE_MLIR_SIM_WORKERS), started once and kept for the next launches.
"""

from __future__ import annotations

import atexit
import os
import time
import warnings

import numpy as np

from .. import env as _env
from . import findings
from .errors import EmulationError
from .memory import TensorMemory

#: the rest of a launch goes to the pool when, estimated from its first cluster, it would take at
#: least this long here (a pool's start costs about a second once; short launches stay here).  The
#: whole rest counts, not one cluster: 255 CTAs of 0.25 s each ran serially under a per-cluster test
PARALLEL_AFTER_SECONDS = 1.0
#: PTX mnemonics / qualifiers through which clusters may communicate in global memory
_COMMUNICATING_OPS = ("atom", "red", "multimem", "membar", "clusterlaunchcontrol")
_COMMUNICATING_QUALS = {"gpu", "sys", "volatile"}
_POOLS: dict = {}


def default_workers(workers=None) -> int:
    if workers is None:
        v = (_env.get("TILE_MLIR_SIM_WORKERS") or "")
        try:
            workers = int(v) if v else (os.cpu_count() or 1)
        except ValueError:
            raise EmulationError(f"TILE_MLIR_SIM_WORKERS={v!r} is not a number of workers") \
                from None
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise EmulationError(f"workers={workers!r} must be a positive number of processes")
    return workers


def communicating(fn):
    """The first instruction of kernel ``fn`` through which its clusters may communicate in global
    memory, or None."""
    for i in fn.instructions:
        parts = i.opcode.split(".")
        if parts[0] in _COMMUNICATING_OPS or _COMMUNICATING_QUALS & set(parts[1:]):
            if parts[0] == "membar" and "cta" in parts:
                continue
            return i
        if parts[0] == "fence" and ("gpu" in parts or "sys" in parts):
            return i
        if parts[:2] == ["cp", "reduce"] and "global" in parts:  # the bulk engine's atomic reductions into global
            return i
    return None


def independent(fn) -> bool:
    """Whether the clusters of kernel ``fn`` cannot communicate through global memory."""
    return communicating(fn) is None


def goes_to_pool(first_seconds: float, rest: int, explicit: bool) -> bool:
    """Whether the ``rest`` clusters after a first one of ``first_seconds`` go to the pool."""
    return rest > 0 and (explicit or first_seconds * rest >= PARALLEL_AFTER_SECONDS)


def _pool(workers: int):
    """The process pool of ``workers`` processes, started once; a broken one (a worker died) is
    dropped and replaced, never handed out again."""
    pool = _POOLS.get(workers)
    if pool is not None and getattr(pool, "_broken", False):
        discard(workers)
        pool = None
    if pool is None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        # fork where there is one: spawn and forkserver import the caller's __main__ again in each
        # worker, which reruns a script that has no `if __name__ == "__main__"` guard
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        pool = _POOLS[workers] = ProcessPoolExecutor(workers, mp_context=ctx)
        atexit.register(pool.shutdown, wait=False, cancel_futures=True)
    return pool


def discard(workers: int) -> None:
    """Forget (and shut down) the cached pool of ``workers`` processes: the next launch starts anew."""
    pool = _POOLS.pop(workers, None)
    if pool is not None:
        try:
            pool.shutdown(wait=False, cancel_futures=True)
        except Exception:  # noqa: BLE001 - a broken pool may fail to shut down; it is dropped anyway
            pass


def _submit(pool, workers, executor, tasks):
    """The futures of ``tasks`` on the pool; a cached pool found broken at submission is replaced
    once (its worker died between launches)."""
    from concurrent.futures.process import BrokenProcessPool
    try:
        return pool, [pool.submit(run_clusters, t) for t in tasks]
    except BrokenProcessPool:
        if executor is not None:
            raise EmulationError("tile-sim: the executor's process pool is broken (a worker died); "
                                 "no cluster was run on it") from None
        discard(workers)
        pool = _pool(workers)
        return pool, [pool.submit(run_clusters, t) for t in tasks]


def _lost(m, clusters, workers, executor, e) -> EmulationError:
    """The EmulationError of a part whose worker died or whose executor failed: its CTAs are lost."""
    from concurrent.futures.process import BrokenProcessPool
    ctas = _cta_range(m, clusters)
    if executor is None or isinstance(e, BrokenProcessPool):
        if executor is None:
            discard(workers)  # (never cached broken: the next launch gets a fresh pool)
        why = ("a pool worker died (killed, or it crashed) while running them; the pool is replaced "
               "for the next launch")
    else:
        why = f"the executor failed running them ({type(e).__name__}: {str(e).strip()[:200]})"
    return EmulationError(f"tile-sim: the results of {ctas} are lost: {why}")


def _cta_range(m, clusters) -> str:
    """``CTAs (x,y,z) .. (x,y,z)`` of the clusters (contiguous linear indices) ``clusters``."""
    gx, gy, _ = m.grid
    cx, cy, cz = m.cluster_dims
    nx, ny = gx // cx, gy // cy

    def corner(lin, last):
        x, y, z = lin % nx * cx, (lin // nx) % ny * cy, lin // (nx * ny) * cz
        return (x + cx - 1, y + cy - 1, z + cz - 1) if last else (x, y, z)

    a, b = corner(clusters[0], False), corner(clusters[-1], True)
    n = len(clusters) * cx * cy * cz
    return f"CTA {a}" if n == 1 else f"{n} CTAs {a} .. {b} (clusters {clusters[0]} .. {clusters[-1]})"


def split(first: int, ncl: int, parts: int) -> list:
    """Contiguous ranges of clusters first..ncl-1, about ``parts`` of them."""
    rest = ncl - first
    parts = max(1, min(parts, rest))
    bounds = [first + rest * k // parts for k in range(parts + 1)]
    return [list(range(a, b)) for a, b in zip(bounds, bounds[1:]) if b > a]


class Outcome:
    """What a run of some clusters sends back (picklable)."""
    __slots__ = ("clusters", "diffs", "kept", "steps", "warnings", "findings", "error")

    def __init__(self, clusters, diffs, kept, steps, warnings, findings=(), error=None):
        self.clusters, self.diffs, self.kept = clusters, diffs, kept
        self.steps, self.warnings, self.findings, self.error = steps, warnings, list(findings), error


def _diffs(m, initial) -> list:
    """(bound-array position, byte indices, new bytes) of what the run changed in global memory."""
    out = []
    for k, ((a, base), init) in enumerate(zip(m.bound_arrays, initial)):
        if not a.nbytes:
            continue
        buf, o = m.gmem.find(base, a.nbytes)
        now = np.frombuffer(buf, np.uint8, a.nbytes, o)
        idx = np.flatnonzero(now != init)
        if idx.size:
            out.append((k, idx, now[idx].copy()))
    return out


def run_clusters(task) -> Outcome:
    """Worker entry: run the clusters of ``task`` from the launch's initial memory."""
    from .build import build_machine  # (late: machine.py imports the handlers, which the parent needs only to run)
    ptx, kernel, args, launch_kw, clusters = task
    try:
        m = build_machine(ptx, kernel, args, **launch_kw)
        initial = [a.view(np.uint8).reshape(-1).copy() for a, _ in m.bound_arrays]
        m.run(clusters)
    except EmulationError as e:
        return Outcome(clusters, [], {}, 0, [], error=e)
    unused = TensorMemory.UNUSED  # shared by every CTA without tensor memory: sent as None
    kept = {i: (None if tm is unused else tm, sm) for i, (tm, sm) in m.kept.items()}
    return Outcome(clusters, _diffs(m, initial), kept, m.steps,
                   [(repr(k), w) for k, w in zip(m.warn_keys, m.warnings)], m.findings)


def run_parallel(m, ptx, kernel, args, launch_kw, *, workers, executor, explicit, bar):
    """Run machine ``m``'s launch (arguments bound, nothing run yet): cluster 0 here, the others
    in the pool when it pays; then ``m`` holds the merged result, its arrays not yet copied
    back.  ``bar``: the progress bar (progress.py) or None."""
    ncl = m.nclusters()
    done = bar.cluster_done if bar else None
    pooled = workers >= 2 or executor is not None
    comm = communicating(m.fn) if ncl >= 2 and pooled else None
    if ncl < 2 or not pooled or comm is not None:
        if comm is not None:
            m.schedule = (f"serial: clusters may communicate through `{comm.opcode}` (PTX line "
                          f"{comm.line})")
            if explicit:
                warnings.warn(f"tile-sim runs {ncl} clusters serially although workers={workers}"
                              f"{' and an executor' if executor is not None else ''} were asked "
                              f"for: {m.schedule[8:]}", RuntimeWarning, stacklevel=4)
        else:
            m.schedule = "serial" + ("" if ncl < 2 else f": workers={workers}")
        if bar:
            bar.note(m.schedule)
        m.run(done=done)
        return
    t0 = time.monotonic()
    m.run([0], done=done)
    first = time.monotonic() - t0
    if not goes_to_pool(first, ncl - 1, explicit):
        m.schedule = (f"serial: the rest estimated at {first * (ncl - 1):.2f} s from the first "
                      f"cluster (< {PARALLEL_AFTER_SECONDS} s)")
        if bar:
            bar.note(m.schedule)
        kept = m.kept
        m.run(range(1, ncl), done=done)
        m.kept = {**kept, **m.kept}
        return
    from concurrent.futures.process import BrokenProcessPool
    pool = executor if executor is not None else _pool(workers)
    nparts = workers if executor is None else max(2 * workers, 4)  # each part decodes anew
    parts = split(1, ncl, nparts)
    m.schedule = (f"pool: cluster 0 here, {ncl - 1} in {len(parts)} parts on "
                  f"{'the executor' if executor is not None else f'{workers} workers'}")
    if bar:
        bar.note(f"pool of {workers}" if executor is None else "executor")
    tasks = [(ptx, kernel, args, launch_kw, cl) for cl in parts]
    pool, futures = _submit(pool, workers, executor, tasks)
    outcomes, retried, k = [], False, 0
    while k < len(parts):
        try:
            o = futures[k].result()
        except Exception as e:  # noqa: BLE001 - a dead worker, a failing executor: the part's CTAs are lost
            if executor is None and isinstance(e, BrokenProcessPool) and not retried:
                # a worker died, maybe before this launch and unseen until now: the parts not yet
                # collected run once more, from the launch's initial memory, on a fresh pool
                retried = True
                discard(workers)
                pool = _pool(workers)
                futures[k:] = [pool.submit(run_clusters, t) for t in tasks[k:]]
                continue
            for g in futures:
                g.cancel()
            if executor is None and not isinstance(e, BrokenProcessPool):
                raise  # (tile-sim's own bug in a worker: as a serial run would raise it)
            raise _lost(m, parts[k], workers, executor, e) from None
        outcomes.append(o)
        k += 1
        if bar:
            bar.clusters_done(len(o.clusters), o.steps)
    unused = TensorMemory.UNUSED
    seen = {repr(k) for k in m.warn_keys}
    for o in outcomes:  # in cluster order
        if o.error is not None:
            raise o.error
        for pos, idx, vals in o.diffs:
            a, base = m.bound_arrays[pos]
            buf, off = m.gmem.find(base, a.nbytes)
            np.frombuffer(buf, np.uint8, a.nbytes, off)[idx] = vals
        m.kept.update({i: (unused if tm is None else tm, sm) for i, (tm, sm) in o.kept.items()})
        m.steps += o.steps
        for key, w in o.warnings:
            if key not in seen:
                seen.add(key)
                m.warnings.append(w)
        for f in o.findings:  # one per rule and line, counted, as in a serial run (findings.py)
            same = findings.seen(m, f.rule, f.line)
            if same is None:
                m.findings.append(f)
            else:
                same.count += f.count
    if m.steps > m.max_steps:
        raise EmulationError(f"step budget of {m.max_steps} warp-instructions exceeded by the "
                             f"launch ({m.steps} in all, its clusters run in {len(outcomes) + 1} "
                             f"parts; pass max_steps= or set TILE_MLIR_SIM_MAX_STEPS)")
