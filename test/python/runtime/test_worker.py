"""A device fault the in-process reset cannot repair (as on the H200 with driver 580): the process
is marked poisoned, host-array calls run in the GPU worker process, device memory is refused --
against a fake driver in this process and in the worker (conftest.WorkerFakeDriver)."""
import logging
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import ARTIFACTS, ROOT
from runtime_fakes import WORKER_DRIVER, FakeCAI, FakeDriver, WorkerFakeDriver
from tile_mlir.runtime import (ArgumentError, ContextLostError, CudaError, TileRuntimeError, jit,
                               synchronize)
from tile_mlir.runtime import device as rt_device
from tile_mlir.runtime import worker as rt_worker

UNRECOVERABLE = pytest.mark.parametrize("fake_cuda", [{"reset_recovers": False}], indirect=True,
                                        ids=["reset-does-not-recover"])


def poison(k, fake_cuda):
    """Fault with a device-array call and see it in synchronize(); return the error."""
    k(FakeCAI(np.full(4096, 4, np.uint8)), 8, 4096)  # raw pointer 8: the fake kernel faults
    with pytest.raises(CudaError) as e:
        synchronize()
    return e.value


@UNRECOVERABLE
def test_unrecovered_fault_poisons_and_host_calls_run_in_worker(fake_cuda, copy_art, caplog):
    caplog.set_level(logging.WARNING, logger="tile_mlir.runtime")
    k = jit(copy_art, backend="gpu")
    err = poison(k, fake_cuda)
    assert err.name == "CUDA_ERROR_ILLEGAL_ADDRESS" and err.sticky
    assert err.poisoned and not err.context_reset and not err.in_worker
    assert "could not be recovered in this process" in str(err)
    assert rt_device.is_poisoned() and fake_cuda.resets == 1
    assert rt_device.poison_reason == "CUDA_ERROR_ILLEGAL_ADDRESS in cuCtxSynchronize"
    synchronize()  # does not raise the old error again
    synchronize(stream=0)
    launches, set_current = fake_cuda.calls["launch"], fake_cuda.calls["cuCtxSetCurrent"]

    src = np.arange(4096).astype(np.uint8)
    dst = np.zeros(4096, np.uint8)
    res = k(src, dst, 4000)
    assert res.worker and res.backend == k.last_backend == "gpu" and res["dst"] is dst
    assert np.array_equal(dst[:4000], src[:4000]) and not dst[4000:].any()
    assert "worker=True" in repr(res)
    # nothing ran (or was made current) in the dead context of this process
    assert fake_cuda.calls["launch"] == launches
    assert fake_cuda.calls["cuCtxSetCurrent"] == set_current
    w = rt_worker.get_worker()
    assert w.starts == 1 and w.pid != os.getpid()

    # same worker for the next calls; non-contiguous output, read-only input, grid override
    big = np.zeros((4096, 2), np.uint8)
    ro = np.full(4096, 9, np.uint8)
    ro.flags.writeable = False
    res = k(ro, big[:, 0], 4096, grid=2)
    assert res.worker and (big[:256, 0] == 9).all() and not big[256:, 0].any()
    assert not big[:, 1].any() and (ro == 9).all()
    assert w.starts == 1
    # a kernel created after the fault also runs there (no context is made current for it)
    k2 = jit(copy_art, backend="gpu")
    dst2 = np.zeros(4096, np.uint8)
    assert k2(src, dst2, 4096).worker and np.array_equal(dst2, src)
    assert fake_cuda.calls["cuCtxSetCurrent"] == set_current and w.starts == 1
    warnings = [r for r in caplog.records if "GPU worker process" in r.getMessage()
                and r.levelno == logging.WARNING and "now run" in r.getMessage()]
    assert len(warnings) == 1  # logged once


@UNRECOVERABLE
def test_device_memory_is_refused_after_poisoning(fake_cuda, copy_art):
    from tile_mlir.runtime import DeviceArray

    k = jit(copy_art, backend="gpu")
    a, b = FakeCAI(np.full(4096, 2, np.uint8)), FakeCAI(np.zeros(4096, np.uint8))
    k(a, b, 4096)
    k(a, b, 4096)  # the cached fast path is armed for (a, b, 4096)
    poison(k, fake_cuda)
    launches = fake_cuda.calls["launch"]
    with pytest.raises(ContextLostError) as e:
        k(a, b, 4096)  # the fast path must not launch into the dead context
    msg = str(e.value)
    assert "argument 0 ('src') is a device array (FakeCAI)" in msg
    assert "died with its CUDA context" in msg and "host (numpy) arrays" in msg
    assert "CUDA_ERROR_ILLEGAL_ADDRESS in cuCtxSynchronize" in msg
    with pytest.raises(ContextLostError, match=r"argument 1 \('dst'\) is a raw device pointer"):
        k(np.zeros(4096, np.uint8), 12345678, 4096)
    with pytest.raises(ContextLostError, match="cannot allocate device memory"):
        DeviceArray(16)
    assert fake_cuda.calls["launch"] == launches
    # argument errors are still reported here, before anything is sent to a worker
    with pytest.raises(ArgumentError, match=r"argument 2 \('n'\): 4294967296 does not fit"):
        k(np.zeros(4096, np.uint8), np.zeros(4096, np.uint8), 2**32)
    assert rt_worker._worker is None or rt_worker._worker.starts == 0


@UNRECOVERABLE
def test_fault_in_worker_is_raised_and_worker_restarted(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    poison(k, fake_cuda)
    src, dst = np.full(4096, 3, np.uint8), np.zeros(4096, np.uint8)
    assert k(src, dst, 4096).worker and (dst == 3).all()
    w = rt_worker.get_worker()
    first = w.pid
    with pytest.raises(CudaError) as e:
        k(src, dst, FakeDriver.FAULT_N)  # faults in the worker
    err = e.value
    assert err.name == "CUDA_ERROR_ILLEGAL_ADDRESS" and err.sticky and err.in_worker
    assert "in the GPU worker process" in str(err) and "starts a fresh one" in str(err)
    dst[:] = 0
    assert k(src, dst, 4096).worker and (dst == 3).all()
    assert w.starts == 2 and w.pid != first
    # a worker killed between calls is replaced transparently
    os.kill(w.pid, signal.SIGKILL)
    rt_worker.get_worker()._proc.join(10)
    dst[:] = 0
    assert k(src, dst, 4096).worker and (dst == 3).all() and w.starts == 3
    # errors raised by the worker's runtime come back as the same class
    with pytest.raises(ArgumentError, match="2048 threads"):
        k(src, dst, 4096, block=(2048,))
    assert w.starts == 3


@UNRECOVERABLE
def test_worker_dying_during_a_call(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    poison(k, fake_cuda)
    src, dst = np.full(4096, 1, np.uint8), np.zeros(4096, np.uint8)
    with pytest.raises(TileRuntimeError, match=r"worker process exited during the call "
                                               r"\(exit code 3\); a fresh one starts"):
        k(src, dst, WorkerFakeDriver.EXIT_N)  # the worker's fake driver calls os._exit(3)
    assert not dst.any()
    assert k(src, dst, 4096).worker and (dst == 1).all()
    assert rt_worker.get_worker().starts == 2


def test_recovered_fault_does_not_poison(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    err = poison(k, fake_cuda)
    assert err.context_reset and not err.poisoned and not rt_device.is_poisoned()
    dst = np.zeros(4096, np.uint8)
    res = k(np.full(4096, 5, np.uint8), dst, 4096)
    assert not res.worker and (dst == 5).all() and rt_worker._worker is None


def test_unguarded_script_is_not_rerun_by_the_worker(tmp_path):
    """A script without an ``if __name__ == "__main__"`` guard: 'spawn' would normally re-run it
    in the child; the worker hides __main__ while it starts (the fake driver there checks it)."""
    script = tmp_path / "unguarded.py"
    script.write_text(textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {os.path.join(ROOT, "test", "python", "runtime")!r})
        os.environ["TILE_MLIR_WORKER_DRIVER"] = {WORKER_DRIVER!r}
        print("MAIN RAN", os.getpid(), flush=True)
        import numpy as np
        from runtime_fakes import FakeCAI, FakeDriver
        from tile_mlir.artifact import Artifact
        from tile_mlir.runtime import driver, jit, synchronize, CudaError
        def load_selftest(name):
            return Artifact.load(os.path.join({ARTIFACTS!r}, name + ".json"))
        driver._drv = FakeDriver(reset_recovers=False)
        k = jit(load_selftest("selftest_copy_u8"), backend="gpu")
        k(FakeCAI(np.zeros(4096, np.uint8)), 8, 4096)
        try:
            synchronize()
        except CudaError as e:
            print("ERROR", e.poisoned)
        dst = np.zeros(4096, np.uint8)
        res = k(np.full(4096, 7, np.uint8), dst, 4096)
        print("NEXT", "ok" if (dst == 7).all() else "bad", res.worker)
    """))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    env.pop(rt_worker.DRIVER_ENV, None)
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert sum(ln.startswith("MAIN RAN") for ln in lines) == 1, p.stdout
    assert "ERROR True" in lines and "NEXT ok True" in lines, p.stdout + p.stderr
