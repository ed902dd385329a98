"""On a real CUDA device (skipped without one, with the reason): the sm_90a self-test artifacts,
device-array protocols, caching, limits, refusal and recovery from a device fault."""
import dataclasses
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import ARTIFACTS, ROOT, load_selftest
from tile_mlir.runtime import (IncompatibleDeviceError, cache_stats, current_device,
                               jit, synchronize)
from tile_mlir.runtime.arch import can_run

pytestmark = pytest.mark.gpu

SELFTESTS = ("selftest_copy_u8", "selftest_smem_reverse_f32", "selftest_cluster_rank")


def needs_runnable(art):
    dev = current_device()
    if not can_run(art.arch, dev.cc)[0]:
        pytest.skip(f"{art.arch} artifact cannot run on {dev.describe()}")


def inputs_expected(name):
    base = os.path.join(ARTIFACTS, name)
    with np.load(base + ".inputs.npz") as z:
        inputs = {k: z[k] for k in z.files}
    with np.load(base + ".expected.npz") as z:
        expected = {k: z[k] for k in z.files}
    return inputs, expected


@pytest.mark.parametrize("name", SELFTESTS)
def test_selftest_numpy(name):
    art = load_selftest(name)
    needs_runnable(art)
    inputs, expected = inputs_expected(name)
    args = [inputs[p.name].item() if p.kind == "scalar" else inputs[p.name].copy()
            for p in art.params]
    k = jit(art, backend="gpu")
    res = k(*args)
    assert res.backend == k.last_backend == "gpu"
    for n, want in expected.items():
        np.testing.assert_array_equal(res[n], want)


def test_device_array_zero_copy():
    from tile_mlir.runtime import DeviceArray

    art = load_selftest("selftest_copy_u8")
    needs_runnable(art)
    src_h = np.random.default_rng(1).integers(0, 256, 4096).astype(np.uint8)
    src, dst = DeviceArray.from_host(src_h), DeviceArray.zeros(4096, np.uint8)
    k = jit(art, backend="gpu")
    for _ in range(3):
        k(src, dst, 4096)
    synchronize()
    np.testing.assert_array_equal(dst.to_host(), src_h)


def test_cupy_arrays():
    cp = pytest.importorskip("cupy")
    art = load_selftest("selftest_smem_reverse_f32")
    needs_runnable(art)
    x = cp.arange(2048, dtype=cp.float32)
    y = cp.zeros(2048, dtype=cp.float32)
    jit(art, backend="gpu")(x, y)
    cp.cuda.runtime.deviceSynchronize()
    np.testing.assert_array_equal(cp.asnumpy(y), np.arange(2048, dtype=np.float32)
                                  .reshape(8, 256)[:, ::-1].reshape(-1))


def test_torch_tensors_and_dlpack():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    art = load_selftest("selftest_copy_u8")
    needs_runnable(art)

    class OnlyDLPack:  # force the DLPack path
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    src = (torch.arange(4096, device="cuda") % 256).to(torch.uint8)
    for wrap in (lambda t: t, OnlyDLPack):
        dst = torch.zeros(4096, dtype=torch.uint8, device="cuda")
        jit(art, backend="gpu")(wrap(src), wrap(dst), 4096)
        torch.cuda.synchronize()
        assert torch.equal(dst, src)
    with pytest.raises(Exception, match="'dst'.*expected uint8"):
        jit(art, backend="gpu")(src, torch.zeros(4096, device="cuda"), 4096)


def test_second_jit_loads_nothing():
    art = load_selftest("selftest_copy_u8")
    needs_runnable(art)
    a, b = np.ones(4096, np.uint8), np.zeros(4096, np.uint8)
    jit(art, backend="gpu")(a, b, 4096)
    loads = cache_stats()["modules"]["loads"]
    jit(art, backend="gpu")(a, b, 4096)
    assert cache_stats()["modules"]["loads"] == loads and b.all()


def test_grid_and_stream_override():
    from tile_mlir.runtime.driver import call

    art = load_selftest("selftest_copy_u8")
    needs_runnable(art)
    stream = call("cuStreamCreate", 1)  # non-blocking stream
    try:
        a, b = np.full(4096, 3, np.uint8), np.zeros(4096, np.uint8)
        jit(art, backend="gpu")(a, b, 4096, grid=2, stream=stream)
        assert (b[:256] == 3).all() and not b[256:].any()
    finally:
        call("cuStreamDestroy", stream)


def test_dynamic_smem_above_device_limit():
    art = load_selftest("selftest_smem_reverse_f32")
    needs_runnable(art)
    dev = current_device()
    too_big = dataclasses.replace(art, dynamic_smem=dev.max_smem_optin + 1024)
    with pytest.raises(IncompatibleDeviceError, match=f"exceed the limit of "
                                                      f"{dev.max_smem_optin} bytes per block"):
        jit(too_big, backend="gpu")(np.zeros(2048, np.float32), np.zeros(2048, np.float32))


def test_sm100a_refused_on_this_device_or_runs():
    dev = current_device()
    art = dataclasses.replace(load_selftest("selftest_copy_u8"), arch="sm_100a")
    if dev.cc == (10, 0):
        pytest.skip("this is an sm_100 device")
    with pytest.raises(IncompatibleDeviceError) as e:
        jit(art, backend="gpu")(np.zeros(4096, np.uint8), np.zeros(4096, np.uint8), 1)
    assert str(e.value) == (f"cubin for sm_100a cannot run on {dev.name} (compute capability "
                            f"{dev.cc[0]}.{dev.cc[1]}): use backend='sim' or an sm_100 GPU")


def test_device_fault_recovery_in_subprocess():
    """After a device fault the next kernel call with host arrays must produce the right data:
    either the in-process context reset worked (err.context_reset), or this process's CUDA state
    is lost (err.poisoned, as on an H200 with driver 580) and the call ran in the GPU worker
    process (result.worker); then device memory from before the fault is refused clearly."""
    script = textwrap.dedent(f"""
        import logging
        logging.basicConfig(level=logging.WARNING)
        import numpy as np
        from tile_mlir.artifact import Artifact
        from tile_mlir.runtime import jit, synchronize, CudaError, ContextLostError, DeviceArray
        art = Artifact.load({os.path.join(ARTIFACTS, 'selftest_copy_u8.json')!r})
        k = jit(art, backend="gpu")
        src = DeviceArray.from_host(np.full(4096, 5, np.uint8))
        k(src, 8, 4096)  # raw pointer 8: illegal address
        try:
            synchronize()
            print("NO-ERROR")
        except CudaError as e:
            print("ERROR", e.name, e.sticky, e.context_reset, e.poisoned)
        synchronize()  # must not raise the old error again
        print("SYNC ok")
        dst = np.zeros(4096, np.uint8)
        res = k(np.full(4096, 7, np.uint8), dst, 4096)
        print("NEXT", "ok" if (dst == 7).all() else "bad")
        print("PATH", "worker" if res.worker else "in-process", res.backend)
        if res.worker:
            try:
                k(src, np.zeros(4096, np.uint8), 4096)
                print("DEVICE-ARRAY accepted")
            except ContextLostError as e:
                print("DEVICE-ARRAY refused")
            dst2 = np.zeros(4096, np.uint8)
            k(np.full(4096, 9, np.uint8), dst2, 4096)
            print("AGAIN", "ok" if (dst2 == 9).all() else "bad")
    """)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    env.pop("TILE_MLIR_WORKER_DRIVER", None)
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                       timeout=240)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    lines = p.stdout.split("\n")
    errors = [ln for ln in lines if ln.startswith("ERROR CUDA_ERROR_")]
    assert len(errors) == 1, out
    recovered = errors[0].endswith(" True True False")  # sticky, context_reset, not poisoned
    poisoned = errors[0].endswith(" True False True")  # sticky, no reset, poisoned
    assert recovered or poisoned, out
    assert "SYNC ok" in lines, out
    assert "NEXT ok" in lines, out
    if poisoned:
        assert "PATH worker gpu" in lines, out
        assert "DEVICE-ARRAY refused" in lines and "AGAIN ok" in lines, out
    else:
        assert "PATH in-process gpu" in lines, out
    print("device fault recovery path:", "worker process" if poisoned else "in-process reset")


def test_tile_run_on_gpu(capsys):
    from tile_mlir.runtime.tile_run import main

    art = load_selftest("selftest_copy_u8")
    needs_runnable(art)
    rc = main([os.path.join(ARTIFACTS, "selftest_copy_u8.json"), "--input", "n=4096",
               "--backend", "gpu", "--print", "summary"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "ran on gpu" in err and out.startswith("dst: shape=(4096,)")
