"""Shared fixtures: self-test artifacts, a fake CUDA driver (pure-logic tests of the GPU path),
a fake emulator, and the ``gpu`` marker (real device; skipped with the reason otherwise)."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
ARTIFACTS = os.path.join(ROOT, "test", "fixtures", "gpu")  # the sm_90a self-tests (bench/gpu/make_selftest.py)
sys.path.insert(0, os.path.join(ROOT, "python"))

from tile_mlir.artifact import Artifact, Param  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped without one)")


def pytest_collection_modifyitems(config, items):
    from tile_mlir.runtime.driver import probe

    ok, reason = probe()
    if ok:
        return
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def load_selftest(name: str) -> Artifact:
    return Artifact.load(os.path.join(ARTIFACTS, name + ".json"))


@pytest.fixture(autouse=True)
def compile_cache_dir(monkeypatch, tmp_path):
    """Every test's disk compile cache is a fresh directory, never the user's."""
    from tile_mlir.runtime import cache

    path = tmp_path / "compile-cache"
    monkeypatch.setenv(cache.DIR_ENV, str(path))
    monkeypatch.delenv(cache.SWITCH_ENV, raising=False)
    return path


@pytest.fixture
def copy_art() -> Artifact:
    return load_selftest("selftest_copy_u8")


def fake_artifact(arch="sm_90a", params=None, **kw) -> Artifact:
    """An artifact with fake cubin bytes (pure-logic tests)."""
    if params is None:
        params = (Param("src", "buffer", "uint8", (64,)), Param("dst", "buffer", "uint8", (64,)),
                  Param("n", "scalar", "uint32"))
    fields = dict(kernel_name="selftest_copy_u8", arch=arch, ptx="// fake ptx\n",
                  cubin=b"\x7fELF fake", params=tuple(params), block=(64, 1, 1), grid=(1, 1, 1))
    fields.update(kw)
    return Artifact(**fields)


# ----------------------------------------------------------------------------- fake emulator


class FakeSim:
    """Stands in for tile_mlir.sim.run_ptx: executes the self-test kernels with numpy."""

    def __init__(self):
        self.calls = []

    def __call__(self, ptx, kernel, args, *, grid, block, cluster, dynamic_smem, strict):
        assert strict is True  # the kernels we compile run strict on tile-sim
        self.calls.append(dict(kernel=kernel, args=args, grid=grid, block=block, cluster=cluster,
                               dynamic_smem=dynamic_smem))
        from tile_mlir.sim import TensorMap

        for a in args:
            assert isinstance(a, (np.ndarray, int, float, TensorMap)), type(a)
        if kernel == "selftest_copy_u8":
            src, dst, n = args
            m = min(n, grid[0] * block[0], dst.size)
            dst[:m] = src[:m]
        elif kernel == "selftest_cluster_rank":
            (out,) = args
            for c in range(grid[0]):
                out[2 * c], out[2 * c + 1] = c % cluster[0], cluster[0]
        elif kernel == "selftest_smem_reverse_f32":
            src, dst = args
            dst[:] = src.reshape(-1, 256)[:, ::-1].reshape(-1)
        return {"ok": True}


@pytest.fixture
def fake_sim(monkeypatch):
    import tile_mlir.sim as sim_pkg

    fs = FakeSim()
    monkeypatch.setattr(sim_pkg, "run_ptx", fs, raising=False)
    return fs


# ----------------------------------------------------------------------------- fake CUDA driver


from runtime_fakes import FakeCAI, FakeDriver, FakeFunction, WorkerFakeDriver, WORKER_DRIVER  # noqa: E402,F401



@pytest.fixture
def fake_cuda(monkeypatch, request):
    """Install a FakeDriver behind tile_mlir.runtime (fresh device/module caches, not poisoned);
    a GPU worker started by the test uses a WorkerFakeDriver and is stopped afterwards."""
    from tile_mlir.runtime import device, driver, module, worker

    fd = FakeDriver(**getattr(request, "param", {}))
    monkeypatch.setattr(driver, "_drv", fd)
    monkeypatch.setattr(driver, "_probe_cache", None)
    monkeypatch.setattr(device, "_devices", {})
    monkeypatch.setattr(device, "_tls", __import__("threading").local())
    monkeypatch.setattr(device, "poisoned", False)
    monkeypatch.setattr(device, "poison_reason", "")
    monkeypatch.setattr(module, "_cache", {})
    monkeypatch.setattr(worker, "_warned", False)
    monkeypatch.setattr(worker, "_worker", None)
    monkeypatch.setenv(worker.DRIVER_ENV, WORKER_DRIVER)
    yield fd
    worker.shutdown()
