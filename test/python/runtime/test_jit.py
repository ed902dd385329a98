"""jit(): backend choice, refusal before launch, caching, marshalling, launch configuration and
sticky-error recovery -- against a fake CUDA driver and a fake emulator (no GPU needed)."""
import gc
import logging
import subprocess
import sys
import types
import weakref

import numpy as np
import pytest

import tile_mlir
from conftest import FakeCAI, fake_artifact, load_selftest
from tile_mlir.artifact import Param
from tile_mlir.runtime import (ArgumentError, BackendUnavailableError, CudaError,
                               IncompatibleDeviceError, jit, synchronize)
from tile_mlir.runtime import driver as rt_driver

from tile_mlir.runtime import cache as rt_cache


def copy_args(n=64, size=64):
    src = np.arange(size, dtype=np.uint8)
    return src, np.zeros(size, np.uint8), n


class CountingCAI:
    """CUDA array interface as a class property (like cupy), counting reads."""

    reads = 0

    def __init__(self, arr):
        self.arr = arr
        self._cai = FakeCAI(arr).__cuda_array_interface__

    @property
    def __cuda_array_interface__(self):
        CountingCAI.reads += 1
        return self._cai


def test_import_is_lazy():
    code = ("import sys, tile_mlir.runtime as rt; "
            "bad = [m for m in ('cuda.bindings.driver', 'tile_mlir.driver.compiler', 'tile_mlir.sim.ptx') "
            "if m in sys.modules]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


# ----------------------------------------------------------------------------- backends


def test_sm100a_refused_on_hopper_before_launch(fake_cuda):
    k = jit(fake_artifact("sm_100a"), backend="gpu")
    with pytest.raises(IncompatibleDeviceError) as e:
        k(*copy_args())
    assert str(e.value) == ("cubin for sm_100a cannot run on NVIDIA H200 (compute capability 9.0):"
                            " use backend='sim' or an sm_100 GPU")
    assert fake_cuda.calls["launch"] == 0 and fake_cuda.calls["cuModuleLoadData"] == 0


def test_auto_falls_back_to_sim_on_wrong_gpu(fake_cuda, fake_sim, caplog):
    caplog.set_level(logging.INFO, logger="tile_mlir.runtime")
    k = jit(fake_artifact("sm_100a"))
    src, dst, n = copy_args(n=40)
    res = k(src, dst, n)
    assert res.backend == k.last_backend == "sim"
    assert dst[:40].tolist() == src[:40].tolist() and not dst[40:].any()
    assert fake_cuda.calls["launch"] == 0
    assert "runs on the PTX emulator" in caplog.text and "NVIDIA H200" in caplog.text
    call = fake_sim.calls[0]
    assert call["args"][2] == 40 and isinstance(call["args"][2], int)
    assert call["grid"] == (1, 1, 1) and call["block"] == (64, 1, 1)


def test_auto_without_gpu_uses_sim(monkeypatch, fake_sim):
    monkeypatch.setattr(rt_driver, "probe", lambda refresh=False: (False, "no CUDA device: x"))
    k = jit(fake_artifact("sm_90a"))
    k(*copy_args())
    assert k.last_backend == "sim" and k.backend_reason == "no CUDA device: x"


def test_gpu_requested_without_gpu(monkeypatch):
    monkeypatch.setattr(rt_driver, "probe",
                        lambda refresh=False: (False, "no CUDA device: cuInit failed with "
                                                      "CUDA_ERROR_NO_DEVICE"))
    with pytest.raises(BackendUnavailableError, match="backend='gpu' requested but no CUDA "
                                                      "device: cuInit failed"):
        jit(fake_artifact(), backend="gpu")(*copy_args())


def test_sim_unavailable(monkeypatch):
    import tile_mlir.sim as sim_pkg

    monkeypatch.delattr(sim_pkg, "run_ptx", raising=False)
    with pytest.raises(BackendUnavailableError, match="PTX emulator tile_mlir.sim.run_ptx is "
                                                      "unavailable"):
        jit(fake_artifact(), backend="sim")(*copy_args())


def test_sim_scalars_and_device_args(fake_sim, fake_cuda):
    params = (Param("x", "buffer", "float32", (4,)), Param("a", "scalar", "float32"),
              Param("h", "scalar", "float16"))
    k = jit(fake_artifact(params=params, kernel_name="k"), backend="sim")
    k(np.zeros(4, np.float32), 1.0, 1.0)
    a, h = fake_sim.calls[0]["args"][1:]
    assert (a, type(a), h) == (1.0, float, 0x3C00)  # f32 as float, f16 as its bit pattern


def test_jit_argument_validation(copy_art):
    with pytest.raises(ValueError, match="backend must be one of"):
        jit(copy_art, backend="cuda")
    with pytest.raises(ValueError, match="built for sm_90a, not sm_100a"):
        jit(copy_art, arch="sm_100a")
    with pytest.raises(ValueError, match="compile options"):
        jit(copy_art, opt_level=3)


# ----------------------------------------------------------------------------- GPU path (fake)


def test_numpy_args_are_staged(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    src = np.random.default_rng(0).integers(0, 256, 4096).astype(np.uint8)
    dst = np.zeros(4096, np.uint8)
    res = k(src, dst, 4000)
    assert res.backend == k.last_backend == "gpu"
    assert list(res.outputs) == ["dst"] and list(res.buffers) == ["src", "dst"] and res["dst"] is dst
    assert np.array_equal(dst[:4000], src[:4000]) and not dst[4000:].any()
    assert fake_cuda.mem == {}  # staging buffers freed
    assert fake_cuda.launches[-1]["grid"] == (32, 1, 1)


def test_non_contiguous_and_readonly_numpy(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    big = np.zeros((4096, 2), np.uint8)
    dst = big[:, 0]  # strided view: staged through a contiguous copy and written back
    src = np.full(4096, 9, np.uint8)
    src.flags.writeable = False  # inputs may be read-only
    k(src, dst, 4096)
    assert (big[:, 0] == 9).all() and not big[:, 1].any()


def test_device_args_zero_copy_and_fast_path(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    src_h = np.arange(4096, dtype=np.uint32).astype(np.uint8)
    dst_h = np.zeros(4096, np.uint8)
    src, dst = CountingCAI(src_h), CountingCAI(dst_h)
    CountingCAI.reads = 0
    r1 = k(src, dst, 4096)
    assert np.array_equal(dst_h, src_h) and fake_cuda.calls.get("cuMemAlloc", 0) == 0
    reads, attrs = CountingCAI.reads, fake_cuda.calls["cuDeviceGetAttribute"]
    for _ in range(10):
        r = k(src, dst, 4096)
    assert r is r1 and fake_cuda.calls["launch"] == 11
    assert CountingCAI.reads == reads  # same objects: not re-read
    assert fake_cuda.calls["cuDeviceGetAttribute"] == attrs  # no per-call driver queries
    k.launch(src, dst, 4096)
    assert fake_cuda.calls["launch"] == 12
    # new objects are inspected again
    k(CountingCAI(src_h), dst, 4096)
    assert CountingCAI.reads == reads + 2


def test_failed_validation_does_not_poison_fast_path(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    a_h, b_h = np.full(4096, 3, np.uint8), np.zeros(4096, np.uint8)
    a, b = FakeCAI(a_h), FakeCAI(b_h)
    k(a, b, 4096)
    c_h = np.full(4096, 5, np.uint8)
    with pytest.raises(ArgumentError, match=r"argument 1 \('dst'\): expected uint8 buffer of "
                                            r"shape \(4096,\), got float32"):
        k(FakeCAI(c_h), FakeCAI(np.zeros(4096, np.float32)), 4096)
    b_h[:] = 0
    k(a, b, 4096)
    assert (b_h == 3).all()


def test_argument_count_and_scalar_errors(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    with pytest.raises(ArgumentError, match=r"takes 3 arguments \(src, dst, n\), got 2"):
        k(np.zeros(4096, np.uint8), np.zeros(4096, np.uint8))
    with pytest.raises(ArgumentError, match=r"argument 2 \('n'\): 4294967296 does not fit"):
        k(np.zeros(4096, np.uint8), np.zeros(4096, np.uint8), 2**32)
    with pytest.raises(ArgumentError, match=r"argument 0 \('src'\): expected an array"):
        k([0] * 4096, np.zeros(4096, np.uint8), 1)
    assert fake_cuda.calls["launch"] == 0


def test_dlpack_device_arg(fake_cuda, copy_art):
    from test_args import FakeDLPackCUDA

    k = jit(copy_art, backend="gpu")
    s, d = np.full(4096, 7, np.uint8), np.zeros(4096, np.uint8)
    k(FakeDLPackCUDA(s), FakeDLPackCUDA(d), 4096)
    assert (d == 7).all()


def test_grid_block_stream_overrides(fake_cuda, copy_art):
    class Stream:
        def __cuda_stream__(self):
            return (0, 0x1234)

    k = jit(copy_art, backend="gpu")
    s, d = np.full(4096, 1, np.uint8), np.zeros(4096, np.uint8)
    k(FakeCAI(s), FakeCAI(d), 4096, grid=2, block=(32,), stream=Stream())
    last = fake_cuda.launches[-1]
    assert (last["grid"], last["block"], last["stream"]) == ((2, 1, 1), (32, 1, 1), 0x1234)
    assert d[:64].all() and not d[64:].any()
    with pytest.raises(ArgumentError, match="2048 threads"):
        k(FakeCAI(s), FakeCAI(d), 4096, block=(2048,))
    with pytest.raises(ArgumentError, match="dimensions must be >= 1"):
        k(FakeCAI(s), FakeCAI(d), 4096, grid=(0,))


def test_dynamic_smem_opt_in_and_limit(fake_cuda):
    art = load_selftest("selftest_smem_reverse_f32")
    assert art.dynamic_smem == 100 * 1024
    k = jit(art, backend="gpu")
    x = np.zeros(2048, np.float32)
    k(FakeCAI(x), FakeCAI(x.copy()))
    assert fake_cuda.calls["cuFuncSetAttribute"] == 1
    assert fake_cuda.launches[-1]["smem"] == 100 * 1024
    import dataclasses

    too_big = dataclasses.replace(art, dynamic_smem=300 * 1024)
    with pytest.raises(IncompatibleDeviceError, match=r"307200 bytes of dynamic shared memory "
                                                      r"exceed the limit of 232448 bytes per block "
                                                      r"on NVIDIA H200"):
        jit(too_big, backend="gpu")(x, x)


def test_cluster_launch_uses_launch_kernel_ex(fake_cuda):
    art = load_selftest("selftest_cluster_rank")
    out = np.zeros(16, np.uint32)
    jit(art, backend="gpu")(out)
    assert fake_cuda.launches[-1]["cluster"] == (2, 1, 1)
    assert out.tolist() == [0, 2, 1, 2] * 4
    with pytest.raises(ArgumentError, match="not a multiple of the cluster"):
        jit(art, backend="gpu")(out, grid=3)


def test_module_and_compile_cache(fake_cuda, monkeypatch, copy_art):
    compiled = []

    def fake_compile(src, arch="sm_100a", **options):
        compiled.append((arch, options))
        return fake_artifact("sm_90a", key="")

    fake = types.ModuleType("tile_mlir.driver.compiler")
    fake.compile = fake_compile
    monkeypatch.setitem(sys.modules, "tile_mlir.driver.compiler", fake)
    import tile_mlir.driver
    monkeypatch.setattr(tile_mlir.driver, "compiler", fake, raising=False)
    monkeypatch.setattr(rt_cache, "_memory", {})
    text = "tile.func @copy() {}  // test_module_and_compile_cache"
    k1 = jit(text, arch="sm_90a", backend="gpu")
    k2 = jit(text, arch="sm_90a", backend="gpu")
    assert len(compiled) == 1 and k1.artifact is k2.artifact and k1.artifact.key
    jit(text, arch="sm_90a", unroll=2)
    jit(text, arch="sm_100a")
    assert [c[0] for c in compiled] == ["sm_90a", "sm_90a", "sm_100a"]
    src, dst = np.ones(64, np.uint8), np.zeros(64, np.uint8)
    k1(src, dst, 64)
    k2(src, dst, 64)
    assert fake_cuda.calls["cuModuleLoadData"] == 1  # second kernel: cached module/function
    assert dst.all()


def test_launch_failure_names_error(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    a = FakeCAI(np.zeros(4096, np.uint8))
    fake_cuda.fail_launch_with = fake_cuda.CUresult.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
    with pytest.raises(CudaError) as e:
        k(a, a, 1)
    assert str(e.value) == ("cuLaunchKernel failed: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES "
                            "(kernel selftest_copy_u8)")
    assert e.value.name == "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" and not e.value.sticky
    assert fake_cuda.resets == 0


def test_invalid_context_is_retried(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    a = FakeCAI(np.zeros(4096, np.uint8))
    k(a, a, 1)
    before = fake_cuda.calls["cuCtxSetCurrent"]
    fake_cuda.fail_launch_with = fake_cuda.CUresult.CUDA_ERROR_INVALID_CONTEXT
    k(a, a, 1)
    assert fake_cuda.calls["cuCtxSetCurrent"] == before + 1


@pytest.mark.parametrize("fake_cuda", [{"reset_keeps_count": False},
                                       {"reset_keeps_count": True}], indirect=True,
                         ids=["reset-drops-count", "reset-keeps-count"])
def test_sticky_fault_resets_context_and_next_call_works(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    src = np.full(4096, 4, np.uint8)
    k(FakeCAI(src), 8, 4096)  # raw pointer 8: the (fake) kernel faults, asynchronously
    with pytest.raises(CudaError) as e:
        synchronize()
    err = e.value
    assert err.name == "CUDA_ERROR_ILLEGAL_ADDRESS" and err.sticky and err.context_reset
    assert "cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS" in str(err)
    assert "primary context was reset" in str(err)
    assert fake_cuda.resets == 1 and fake_cuda.alive and fake_cuda.refcount >= 1
    dst = np.zeros(4096, np.uint8)
    assert k(src, dst, 4096).backend == "gpu" and (dst == 4).all()
    assert fake_cuda.calls["cuModuleLoadData"] == 2  # cache dropped, module reloaded
    # and a second fault is recovered from as well
    k(FakeCAI(src), 8, 4096)
    with pytest.raises(CudaError, match="ILLEGAL_ADDRESS"):
        synchronize()
    dst[:] = 0
    k(src, dst, 4096)
    assert (dst == 4).all() and fake_cuda.resets == 2


def test_sticky_error_seen_by_launch(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    a, b = FakeCAI(np.full(4096, 2, np.uint8)), FakeCAI(np.zeros(4096, np.uint8))
    k(a, b, 4096)
    fake_cuda.sticky = fake_cuda.CUresult.CUDA_ERROR_ILLEGAL_ADDRESS  # from some other kernel
    with pytest.raises(CudaError, match="cuLaunchKernel failed: CUDA_ERROR_ILLEGAL_ADDRESS"):
        k(a, b, 4096)  # fast path
    assert fake_cuda.resets == 1
    b.arr[:] = 0
    k(a, b, 4096)
    assert (b.arr == 2).all()


def test_sticky_fault_with_numpy_args_raises_in_the_call(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    src = np.full(4096, 6, np.uint8)
    with pytest.raises(CudaError) as e:
        k(src, 8, 4096)  # staged call: the copy-back sees the fault
    assert e.value.name == "CUDA_ERROR_ILLEGAL_ADDRESS" and e.value.context_reset
    dst = np.zeros(4096, np.uint8)
    k(src, dst, 4096)
    assert (dst == 6).all()


@pytest.mark.parametrize("nparams", [0, 1, 3, 40])
def test_generated_fast_paths(fake_cuda, nparams):
    params = tuple(Param(f"p{i}", "scalar", "int32") for i in range(nparams))
    k = jit(fake_artifact(params=params, kernel_name=f"k{nparams}"), backend="gpu")
    vals = tuple(range(nparams))
    r = k(*vals)
    assert r.backend == "gpu" and k(*vals) is r and fake_cuda.calls["launch"] == 2
    k.launch(*vals)
    assert fake_cuda.calls["launch"] == 3
    with pytest.raises(ArgumentError, match=f"takes {nparams} argument"):
        k(*vals, 5)
    if nparams:
        with pytest.raises(ArgumentError, match=f"got {nparams - 1}"):
            k(*vals[:-1])
    k.forget()
    k(*vals)
    assert fake_cuda.calls["launch"] == 4


def test_cubin_rejected_by_driver_falls_back_to_ptx(fake_cuda, copy_art, caplog):
    loads = []
    real_load = fake_cuda.cuModuleLoadData

    def load(data):
        loads.append(data[:8])
        if data == copy_art.cubin:
            return (fake_cuda.CUresult.CUDA_ERROR_UNSUPPORTED_PTX_VERSION,)
        assert data.endswith(b"\0") and b".entry selftest_copy_u8" in data
        return real_load(data)

    fake_cuda.cuModuleLoadData = load
    a = np.full(4096, 1, np.uint8)
    b = np.zeros(4096, np.uint8)
    jit(copy_art, backend="gpu")(a, b, 4096)
    assert len(loads) == 2 and b.all() and "loading its PTX" in caplog.text


def test_dropped_kernel_frees_its_last_arguments(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    a, b = FakeCAI(np.full(4096, 2, np.uint8)), FakeCAI(np.zeros(4096, np.uint8))
    k(a, b, 4096)
    k(a, b, 4096)  # the fast path holds (a, b, 4096)
    refs = weakref.ref(k), weakref.ref(a)
    gc.disable()  # freed by reference counting alone: no cycle through the fast path
    try:
        del k, a
        assert refs[0]() is None and refs[1]() is None
    finally:
        gc.enable()


def test_launch_outlives_its_kernel_object(fake_cuda, copy_art):
    src, dst = np.full(4096, 5, np.uint8), np.zeros(4096, np.uint8)
    launch = jit(copy_art, backend="gpu").launch
    launch(src, dst, 4096)
    assert (dst == 5).all()
    jit(copy_art, backend="gpu").launch(src, dst, 1)  # the JitKernel is dropped before the call
    assert fake_cuda.calls["launch"] == 2


def test_keyword_calls_take_the_fast_path(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    src, dst = FakeCAI(np.full(4096, 3, np.uint8)), FakeCAI(np.zeros(4096, np.uint8))
    r = k(n=4096, dst=dst, src=src)
    assert (dst.arr == 3).all()
    assert k(src, dst, n=4096) is r and k(src=src, dst=dst, n=4096) is r  # repeated: fast path
    k.launch(src, dst=dst, n=4096)
    assert fake_cuda.calls["launch"] == 4
    with pytest.raises(ArgumentError, match=r"missing argument\(s\) 'dst'"):
        k(src, n=4096)
    with pytest.raises(ArgumentError, match=r"unexpected keyword argument\(s\) 'm'"):
        k.launch(src, dst, 4096, m=1)
    with pytest.raises(TypeError, match="multiple values"):  # as Python says it
        k(src, src=src, dst=dst, n=1)


def test_read_only_outputs_are_refused(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    src, dst = np.full(4096, 3, np.uint8), np.zeros(4096, np.uint8)
    dst.flags.writeable = False
    with pytest.raises(ArgumentError, match=r"argument 1 \('dst'\): the array is read-only, but "
                                            r"the kernel writes it"):
        k(src, dst, 4096)
    ro_dev = FakeCAI(np.zeros(4096, np.uint8))
    ro_dev.__cuda_array_interface__["data"] = (ro_dev.arr.ctypes.data, True)
    with pytest.raises(ArgumentError, match="read-only"):
        k(FakeCAI(src), ro_dev, 4096)
    assert fake_cuda.calls["launch"] == 0
    # an artifact that does not record its outputs: every buffer may be written
    k2 = jit(fake_artifact(meta={}), backend="gpu")
    src = np.zeros(64, np.uint8)
    src.flags.writeable = False
    with pytest.raises(ArgumentError, match="'src'.*may write it"):
        k2(src, np.zeros(64, np.uint8), 64)


def test_inputs_are_not_copied_back(fake_cuda, copy_art):
    k = jit(copy_art, backend="gpu")
    back = []
    copy = fake_cuda.cuMemcpyDtoHAsync
    fake_cuda.cuMemcpyDtoHAsync = lambda host, dev, n, s: back.append(n) or copy(host, dev, n, s)
    src, dst = np.full(4096, 3, np.uint8), np.zeros(4096, np.uint8)
    k(src, dst, 4096)
    assert back == [4096] and (dst == 3).all()  # dst only


def test_kernel_signature_and_docstring(copy_art):
    import inspect

    k = jit(copy_art, backend="sim")
    assert list(inspect.signature(k).parameters) == ["src", "dst", "n", "grid", "block", "stream"]
    assert "keyword" in type(k).__doc__ and inspect.signature(type(k))  # the class has its own


def test_backend_environment_variable_forces_the_emulator(fake_cuda, fake_sim, monkeypatch):
    """$TILE_MLIR_BACKEND=sim (as TRITON_INTERPRET=1): the emulator runs a kernel the GPU could run,
    whatever jit() was asked; =gpu forces the GPU; another value is an ArgumentError."""
    monkeypatch.setenv("TILE_MLIR_BACKEND", "sim")
    k = jit(fake_artifact("sm_90a"), backend="gpu")
    res = k(*copy_args())
    assert (k.backend, res.backend, k.last_backend) == ("sim", "sim", "sim")
    assert fake_cuda.calls["launch"] == 0 and len(fake_sim.calls) == 1
    monkeypatch.setenv("TILE_MLIR_BACKEND", "gpu")
    k = jit(fake_artifact("sm_90a"), backend="sim")
    assert k(*copy_args()).backend == "gpu" and fake_cuda.calls["launch"] == 1
    monkeypatch.setenv("TILE_MLIR_BACKEND", "emulator")
    with pytest.raises(ArgumentError, match=r"\$TILE_MLIR_BACKEND must be one of \('auto', 'gpu', 'sim'\), "
                                            r"got 'emulator'"):
        jit(fake_artifact("sm_90a"))
    monkeypatch.setenv("TILE_MLIR_BACKEND", "")
    assert jit(fake_artifact("sm_90a")).backend == "auto"
