"""Clusters on every core (sim/pool.py): a pool's result is bit-identical to the serial run, a
fault names its CTA as the serial run does, a kernel that may communicate runs serially, and any
concurrent.futures.Executor serves (dask.distributed's LocalCluster client)."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, pool, run_ptx
from tile_mlir.sim.ptx_parser import parse

HEADER = ".version 8.8\n.target sm_100a\n.address_size 64\n"
# each thread writes (ctaid.x * 1000 + tid.x) at out[ctaid.x * ntid.x + tid.x]; CTA `bad` writes
# past the end when it is given
KERNEL = HEADER + """.visible .entry k(.param .u64 out, .param .u32 bad)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r5, [bad];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r1, %r3, %r2;
  setp.eq.u32 %p1, %r1, %r5;
  @%p1 add.u32 %r4, %r4, 100000;
  mul.wide.u32 %rd2, %r4, 4;
  add.u64 %rd3, %rd1, %rd2;
  mad.lo.u32 %r6, %r1, 1000, %r2;
  st.global.u32 [%rd3], %r6;
  ret;
}
"""


def _run(workers=None, executor=None, bad=99, grid=8, kernel=KERNEL):
    out = np.zeros(grid * 64, np.uint32)
    res = run_ptx(kernel, "k", [out, bad], grid=(grid, 1, 1), block=(64, 1, 1),
                  workers=workers, executor=executor, progress=False)
    return out, res


def test_pool_result_is_bit_identical_to_serial():
    serial, rs = _run(workers=1)
    parallel, rp = _run(workers=2)
    want = (np.arange(8)[:, None] * 1000 + np.arange(64)[None, :]).reshape(-1)
    assert np.array_equal(serial, want)
    assert np.array_equal(parallel, serial)
    assert rp.steps == rs.steps and len(rp.shared) == len(rs.shared) == 8
    assert all(np.array_equal(a, b) for a, b in zip(rp.shared, rs.shared))


class _Clock:
    """pool.time with a monotonic clock that advances ``dt`` per reading: a first cluster of dt."""

    def __init__(self, dt):
        self.t, self.dt = 0.0, dt

    def monotonic(self):
        self.t += self.dt
        return self.t


def test_default_workers_pool_many_short_clusters(monkeypatch):
    # the NVFP4 2048^3 case: 256 CTAs of 0.25 s ran serially (one core) because the pool was chosen
    # by the first cluster's time alone; the estimated rest of the launch decides now
    assert pool.goes_to_pool(0.25, 255, False) and not pool.goes_to_pool(0.25, 2, False)
    assert pool.goes_to_pool(0.0, 1, True) and not pool.goes_to_pool(5.0, 0, False)
    serial, rs = _run(workers=1)
    monkeypatch.setenv("TILE_MLIR_SIM_WORKERS", "2")  # the default, not workers= (explicit)
    monkeypatch.setattr(pool, "time", _Clock(0.25))  # 7 more clusters: 1.75 s estimated
    out, res = _run()
    assert res.schedule == "pool: cluster 0 here, 7 in 2 parts on 2 workers", res.schedule
    assert np.array_equal(out, serial) and res.steps == rs.steps
    assert all(np.array_equal(a, b) for a, b in zip(res.shared, rs.shared))
    monkeypatch.setattr(pool, "time", _Clock(0.25))
    out, res = _run(grid=3)  # 2 more: 0.5 s estimated, stays here
    assert res.schedule.startswith("serial: the rest estimated at 0.50 s"), res.schedule
    assert np.array_equal(out, serial[:3 * 64])


def test_serial_fallback_is_reported():
    atom = KERNEL.replace("st.global.u32 [%rd3], %r6;", "atom.global.add.u32 %r7, [%rd3], %r6;")
    serial, _ = _run(workers=1)
    with pytest.warns(RuntimeWarning, match=r"8 clusters serially although workers=2 .*"
                      r"`atom\.global\.add\.u32` \(PTX line 21\)"):
        out, res = _run(workers=2, kernel=atom)
    assert res.schedule == "serial: clusters may communicate through `atom.global.add.u32` (PTX line 21)"
    assert np.array_equal(out, serial)
    assert _run(workers=1)[1].schedule == "serial: workers=1"
    assert _run(workers=2)[1].schedule.startswith("pool: cluster 0 here, 7 in 2 parts")


def test_fault_names_its_cta_as_the_serial_run_does():
    msgs = []
    for w in (1, 2):
        with pytest.raises(EmulationError) as ei:
            _run(workers=w, bad=5)
        msgs.append(str(ei.value))
    assert "CTA 5" in msgs[0] and msgs[0] == msgs[1], msgs


def test_kernels_that_may_communicate_run_serially():
    assert pool.independent(parse(KERNEL).entry("k"))
    atom = KERNEL.replace("st.global.u32 [%rd3], %r6;", "atom.global.add.u32 %r7, [%rd3], %r6;")
    assert not pool.independent(parse(atom).entry("k"))
    fence = KERNEL.replace("ret;", "fence.acq_rel.gpu;\n  ret;")
    assert not pool.independent(parse(fence).entry("k"))
    # the bulk engine's reductions into global memory are atomic across clusters (split-K's partials)
    reduce = KERNEL.replace("ret;", "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd3], [%r6], 16;\n  ret;")
    assert not pool.independent(parse(reduce).entry("k"))
    assert pool.split(1, 8, 3) == [[1, 2], [3, 4], [5, 6, 7]]


def test_workers_from_the_environment(monkeypatch):
    monkeypatch.setenv("TILE_MLIR_SIM_WORKERS", "3")
    assert pool.default_workers() == 3
    monkeypatch.setenv("TILE_MLIR_SIM_WORKERS", "many")
    with pytest.raises(EmulationError, match="TILE_MLIR_SIM_WORKERS='many'"):
        pool.default_workers()
    with pytest.raises(EmulationError, match="workers=0 must be a positive"):
        pool.default_workers(0)


@pytest.mark.slow  # a dask cluster of two processes; make test keeps the process pool's tests above
def test_dask_local_cluster_executor():
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed "
                                      "(pip install -e '.[dist]')")
    serial, _ = _run(workers=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cl, distributed.Client(cl) as client:
        out, _ = _run(executor=client.get_executor())
    assert np.array_equal(out, serial)


def test_progress_bar_switches(monkeypatch, capsys):
    from tile_mlir.sim import progress
    assert progress.enabled(True) and not progress.enabled(False)
    monkeypatch.setenv("TILE_MLIR_SIM_PROGRESS", "0")
    assert not progress.enabled(None)
    monkeypatch.delenv("TILE_MLIR_SIM_PROGRESS")
    assert progress.enabled(None) == (__import__("sys").stderr.isatty())
    pytest.importorskip("tqdm")
    _run(workers=1, grid=4)  # progress=False: nothing on stderr
    assert capsys.readouterr().err == ""
    out = np.zeros(4 * 64, np.uint32)
    run_ptx(KERNEL, "k", [out, 99], grid=(4, 1, 1), block=(64, 1, 1), workers=1, progress=True)
    err = capsys.readouterr().err
    assert "tile-sim (serial: workers=1)" in err and "/4" in err and "CTA" in err, err
