"""Work started on forked worker processes before a kernel runs and gathered after it: the GEMM examples'
--run check (gemm_reference.start_check) computes its reference while the kernel compiles and tile-sim
emulates it, so that the check's minutes of CPU share the cores with the emulation instead of following it.

A job (the operands, read-only) goes to each worker once, by fork (no pickling); each task is a function of
the job and small arguments, and sends back its result. Where fork is missing, one worker is asked for, or
a worker dies, the tasks run here, in order, when their results are gathered: the same results. So do the
tasks named ``local``: a task that uses torch, once this process has started torch's OpenMP threads,
deadlocks in a forked child (GNU OpenMP's thread pool does not survive fork; seen here, not a guess).
"""
from __future__ import annotations

import os

_JOB = None  # the job of this worker process (set by _init in each forked worker)


def _init(job) -> None:
    global _JOB
    _JOB = job


def _call(fn, args):
    return fn(_JOB, *args)


def default_workers() -> int:
    """Every core, as tile-sim's pool (TILE_MLIR_SIM_WORKERS caps both)."""
    v = os.environ.get("TILE_MLIR_SIM_WORKERS", "")
    return int(v) if v.isdigit() and int(v) > 0 else (os.cpu_count() or 1)


class StartedWork:
    """``tasks`` (a list of (fn, args): fn(job, *args) is a task's result) started now on ``workers``
    forked processes, but those whose index is in ``local``; :meth:`result` gathers them."""

    def __init__(self, job, tasks, workers: int, local=()):
        import multiprocessing
        self.job, self.tasks, self.pool, self.futures = job, list(tasks), None, None
        forked = [i for i in range(len(self.tasks)) if i not in set(local)]
        if workers >= 2 and len(forked) >= 2 and "fork" in multiprocessing.get_all_start_methods():
            from concurrent.futures import ProcessPoolExecutor
            self.pool = ProcessPoolExecutor(min(workers, len(forked)),
                                            mp_context=multiprocessing.get_context("fork"),
                                            initializer=_init, initargs=(job,))
            self.futures = {i: self.pool.submit(_call, *self.tasks[i]) for i in forked}

    def result(self, i: int):
        """Task i's result: from its worker, or computed here (no pool, or its worker died)."""
        if self.futures is not None and i in self.futures:
            from concurrent.futures.process import BrokenProcessPool
            try:
                return self.futures[i].result()
            except BrokenProcessPool:
                pass  # (a killed worker: the task runs here; a task's own error is raised as it is)
        fn, args = self.tasks[i]
        return fn(self.job, *args)

    def close(self) -> None:
        """Wait for the workers to exit (every result gathered: they are idle)."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None

    def cancel(self) -> None:
        """Stop the work now (the kernel failed: its check is not wanted): the workers are terminated, as
        shutdown alone would wait for their running tasks."""
        if self.pool is not None:
            for proc in list(getattr(self.pool, "_processes", {}).values()):  # (no public handle on them)
                proc.terminate()
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None
