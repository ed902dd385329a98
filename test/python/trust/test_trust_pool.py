"""Issue 36 class 8: a tile-sim pool worker that dies loses its CTAs as an EmulationError naming them,
the broken pool is dropped and the next pooled launch runs on a fresh one; an executor that is not one,
or that fails, is an EmulationError too (never a foreign exception)."""
import contextlib
import os
import signal
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, pool, run_ptx

KERNEL = """.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r1, %r3, %r2;
  mul.wide.u32 %rd2, %r4, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
"""
WORKERS = 3  # (a pool of its own: other tests' pools are untouched)


def _run(**kw):
    out = np.zeros(6 * 32, np.uint32)
    run_ptx(KERNEL, "k", [out], grid=(6, 1, 1), block=(32, 1, 1), progress=False, **kw)
    return out


def die_by_exit(task):
    os._exit(7)


def die_by_signal(task):
    os.kill(os.getpid(), signal.SIGKILL)


def die_once(task):
    """The first worker to take a part dies (O_EXCL on a flag file); the others run it."""
    try:
        os.close(os.open(os.environ["TRUST_POOL_FLAG"], os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return pool.__dict__["_real_run_clusters"](task)
    os._exit(7)


@pytest.mark.parametrize("death", [die_by_exit, die_by_signal])
def test_a_dead_worker_is_an_emulation_error_and_the_pool_is_replaced(death, monkeypatch):
    pool.discard(WORKERS)
    with monkeypatch.context() as mp:
        mp.setattr(pool, "run_clusters", death)
        with pytest.raises(EmulationError, match=r"the results of CTA \(1, 0, 0\) are lost: a pool "
                                                 r"worker died"):
            _run(workers=WORKERS)
    assert WORKERS not in pool._POOLS  # (never cached broken)
    assert np.array_equal(_run(workers=WORKERS), np.arange(6 * 32))  # a fresh pool runs the next launch
    pool.discard(WORKERS)


def test_a_worker_that_dies_once_costs_a_rerun_not_the_launch(monkeypatch, tmp_path):
    pool.discard(WORKERS)
    monkeypatch.setenv("TRUST_POOL_FLAG", str(tmp_path / "died"))
    monkeypatch.setitem(pool.__dict__, "_real_run_clusters", pool.run_clusters)
    monkeypatch.setattr(pool, "run_clusters", die_once)
    assert np.array_equal(_run(workers=WORKERS), np.arange(6 * 32))  # (the parts rerun on a fresh pool)
    assert (tmp_path / "died").exists()
    pool.discard(WORKERS)


def test_a_pool_broken_between_launches_is_replaced():
    pool.discard(WORKERS)
    assert np.array_equal(_run(workers=WORKERS), np.arange(6 * 32))
    p = pool._POOLS[WORKERS]
    for proc in list(p._processes.values()):
        with contextlib.suppress(ProcessLookupError):  # (one may have gone already)
            os.kill(proc.pid, signal.SIGKILL)
        proc.join()
    assert np.array_equal(_run(workers=WORKERS), np.arange(6 * 32))
    assert pool._POOLS[WORKERS] is not p
    pool.discard(WORKERS)


@pytest.mark.parametrize("executor", ["dask", 3, object()])
def test_an_executor_that_is_none_is_refused(executor):
    with pytest.raises(EmulationError, match="expected a concurrent.futures.Executor"):
        _run(executor=executor)


class _Failing(ThreadPoolExecutor):
    def submit(self, fn, *a, **kw):
        f = Future()
        f.set_exception(ConnectionError("scheduler gone"))
        return f


def test_a_failing_executor_loses_its_ctas_as_an_emulation_error():
    with _Failing(1) as ex, pytest.raises(EmulationError, match=r"are lost: the executor failed running them "
                                                                 r"\(ConnectionError: scheduler gone\)"):
        _run(executor=ex)
