"""Fake CUDA drivers for the runtime tests, in a module of its own: GPU worker processes started by the
tests import WorkerFakeDriver by module name, and `conftest` is ambiguous in a whole-suite run (every
test folder has one)."""
from __future__ import annotations

import ctypes
import os
import sys
from collections import Counter

import numpy as np

class FakeFunction:
    def __init__(self, name):
        self.name = name
        self.attrs = {}


class FakeDriver:
    """Enough of cuda.bindings.driver for the runtime: device memory is host memory it owns,
    launches of the self-test kernels are executed with ctypes on the packed kernelParams.

    The copy kernel "faults" (a sticky CUDA_ERROR_ILLEGAL_ADDRESS, seen by the next call) when its
    dst pointer is below 4096 or when n == FAULT_N (a fault that host-array calls can trigger).
    """

    FAULT_N = 0xFA17

    def __init__(self, name="NVIDIA H200", cc=(9, 0), smem_optin=232448, reset_keeps_count=False,
                 reset_recovers=True):
        from cuda.bindings import driver as real

        self.real = real
        for t in ("CUresult", "CUdevice_attribute", "CUfunction_attribute", "CUlaunchConfig",
                  "CUlaunchAttribute", "CUlaunchAttributeID", "CUstream", "CUtensorMapDataType",
                  "CUtensorMapInterleave", "CUtensorMapSwizzle", "CUtensorMapL2promotion",
                  "CUtensorMapFloatOOBfill", "cuuint32_t", "cuuint64_t"):
            setattr(self, t, getattr(real, t))
        self.name, self.cc, self.smem_optin = name, cc, smem_optin
        self.calls = Counter()
        self.mem: dict[int, np.ndarray] = {}
        self.sticky = None
        self.launches = []
        self.encoded, self._keep = [], []  # cuTensorMapEncodeTiled calls, and their stand-in maps
        self.resets = 0
        self.fail_launch_with = None  # a CUresult to return from the next launch
        self.OK = real.CUresult.CUDA_SUCCESS
        # primary context: a reset makes it inactive; reset_keeps_count=False models what an H200
        # with driver 580 showed (the reset drops the retain count to 0, so a release after the
        # re-retain destroys the fresh context), True the other reading of the documentation
        # (count survives, a retain while the count is > 0 does not re-create the context).
        self.reset_keeps_count = reset_keeps_count
        self.refcount, self.alive, self.ctx_id = 0, False, 0
        # reset_recovers=False models what the H200 (driver 580) actually did: after the reset no
        # retain brings a working context back (every call fails), the process must be restarted
        self.reset_recovers = reset_recovers
        self.dead = False

    def _res(self, *vals):
        if not self.alive:
            return (self.CUresult.CUDA_ERROR_CONTEXT_IS_DESTROYED, *vals)
        return (self.sticky or self.OK, *vals)

    def cuGetErrorName(self, code):
        return self.OK, self.CUresult(int(code)).name.encode()

    def cuInit(self, flags):
        self.calls["cuInit"] += 1
        return (self.OK,)

    def cuDeviceGetCount(self):
        return self.OK, 1

    def cuDeviceGet(self, ordinal):
        return self.OK, ordinal

    def cuDeviceGetName(self, n, dev):
        return self.OK, self.name.encode().ljust(n, b"\0")

    def cuDeviceGetAttribute(self, attr, dev):
        self.calls["cuDeviceGetAttribute"] += 1
        A = self.CUdevice_attribute
        return self.OK, {
            A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: self.cc[0],
            A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: self.cc[1],
            A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: 49152,
            A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: self.smem_optin,
            A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: 132,
            A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: 1024,
        }[attr]

    def cuDevicePrimaryCtxRetain(self, dev):
        self.calls["retain"] += 1
        if self.refcount == 0 and not self.dead:
            self.alive, self.ctx_id = True, self.ctx_id + 1
        self.refcount += 1
        return self.OK, f"ctx{self.ctx_id}"

    def cuDevicePrimaryCtxRelease(self, dev):
        self.calls["release"] += 1
        if self.refcount == 0:
            return (self.CUresult.CUDA_ERROR_INVALID_CONTEXT,)
        self.refcount -= 1
        if self.refcount == 0:
            self.alive = False
        return (self.OK,)

    def cuDevicePrimaryCtxReset(self, dev):
        self.resets += 1
        self.sticky = None
        self.alive = False
        self.dead = not self.reset_recovers
        if not self.reset_keeps_count:
            self.refcount = 0
        self.mem.clear()
        return (self.OK,)

    def cuCtxSetCurrent(self, ctx):
        self.calls["cuCtxSetCurrent"] += 1
        return (self.OK,)

    def cuCtxSynchronize(self):
        return self._res()

    def cuStreamSynchronize(self, stream):
        return self._res()

    def cuModuleLoadData(self, data):
        self.calls["cuModuleLoadData"] += 1
        assert isinstance(data, bytes) and data
        return self._res(f"module{self.calls['cuModuleLoadData']}")

    def cuModuleUnload(self, mod):
        return (self.OK,)

    def cuModuleGetFunction(self, mod, name):
        return self._res(FakeFunction(name.decode()))

    def cuFuncGetAttribute(self, attr, func):
        A = self.CUfunction_attribute
        return self.OK, {A.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: 0,
                         A.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: 1024}[attr]

    def cuFuncSetAttribute(self, func, attr, value):
        self.calls["cuFuncSetAttribute"] += 1
        func.attrs[attr] = value
        return self._res()

    # memory: "device pointers" are addresses of numpy buffers owned here
    def cuMemAlloc(self, n):
        buf = np.zeros(n, np.uint8)
        self.mem[buf.ctypes.data] = buf
        return self._res(buf.ctypes.data)

    def cuMemFree(self, ptr):
        self.mem.pop(int(ptr), None)
        return self._res()

    def cuStreamCreate(self, flags):
        return self._res(0x5000)

    def cuMemsetD8(self, ptr, v, n):
        ctypes.memset(int(ptr), v, n)
        return self._res()

    def _copy(self, dst, src, n, *_stream):
        if not self.alive or self.sticky:
            return self._res()
        ctypes.memmove(int(dst), int(src), n)
        return (self.OK,)

    cuMemcpyHtoD = cuMemcpyDtoH = cuMemcpyHtoDAsync = cuMemcpyDtoHAsync = _copy

    # launches
    def cuTensorMapEncodeTiled(self, dtype, rank, address, dims, strides, box, elem_strides, interleave,
                               swizzle, l2, oob):
        """A stand-in CUtensorMap: 128 bytes holding the call's number and the global address."""
        self.calls["cuTensorMapEncodeTiled"] += 1
        ints = lambda vs, t: [int(v) for v in vs if isinstance(v, t)]  # noqa: E731  (cuuint*_t, as the real one takes)
        self.encoded.append(dict(dtype=dtype, rank=rank, address=address, dims=ints(dims, self.real.cuuint64_t),
                                 strides=ints(strides, self.real.cuuint64_t), box=ints(box, self.real.cuuint32_t),
                                 elem_strides=ints(elem_strides, self.real.cuuint32_t), interleave=interleave,
                                 swizzle=swizzle, l2=l2, oob=oob))
        blob = (ctypes.c_uint64 * 16)(len(self.encoded), address)
        self._keep.append(blob)
        return (self.OK, type("FakeTensorMap", (), {"getPtr": lambda _self: ctypes.addressof(blob)})())

    def cuLaunchKernel(self, f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        return self._launch(f, (gx, gy, gz), (bx, by, bz), smem, stream, params, (1, 1, 1))

    def cuLaunchKernelEx(self, cfg, f, params, extra):
        cluster = (1, 1, 1)
        for a in cfg.attrs[:cfg.numAttrs]:
            if a.id == self.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
                c = a.value.clusterDim
                cluster = (c.x, c.y, c.z)
        return self._launch(f, (cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ),
                            (cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ), cfg.sharedMemBytes,
                            cfg.hStream, params, cluster)

    def _launch(self, f, grid, block, smem, stream, params, cluster):
        self.calls["launch"] += 1
        if not self.alive or self.sticky:
            return self._res()
        if self.fail_launch_with is not None:
            err, self.fail_launch_with = self.fail_launch_with, None
            return (err,)
        A = self.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        if smem > max(49152, f.attrs.get(A, 0)):
            return (self.CUresult.CUDA_ERROR_INVALID_VALUE,)
        slots = (ctypes.c_void_p * 8).from_address(params) if params else []
        u64 = lambda i: ctypes.c_uint64.from_address(slots[i]).value  # noqa: E731
        self.launches.append(dict(name=f.name, grid=grid, block=block, smem=smem,
                                  stream=int(stream), cluster=cluster, params=params))
        if f.name == "selftest_copy_u8":
            src, dst = u64(0), u64(1)
            n = ctypes.c_uint32.from_address(slots[2]).value
            if dst < 4096 or n == self.FAULT_N:  # a "device fault", reported asynchronously
                self.sticky = self.CUresult.CUDA_ERROR_ILLEGAL_ADDRESS
                return (self.OK,)
            ctypes.memmove(dst, src, min(n, grid[0] * block[0]))
        elif f.name == "selftest_cluster_rank":
            out = (ctypes.c_uint32 * (2 * grid[0])).from_address(u64(0))
            for c in range(grid[0]):
                out[2 * c], out[2 * c + 1] = c % cluster[0], cluster[0]
        return (self.OK,)


class FakeCAI:
    """A 'device array' (CUDA array interface) over host memory the fake driver can reach."""

    def __init__(self, arr: np.ndarray, strides=None, typestr=None):
        self.arr = arr
        self.__cuda_array_interface__ = {
            "shape": arr.shape, "typestr": typestr or arr.dtype.str,
            "data": (arr.ctypes.data, False), "strides": strides, "version": 3}


class WorkerFakeDriver(FakeDriver):
    """The fake driver of the GPU worker process (tile_mlir.runtime.worker, child side): it also
    checks that the child imported neither MLIR nor the compiler nor the parent's main module."""

    def cuModuleLoadData(self, data):
        bad = [m for m in sys.modules if m == "mlir" or m.startswith(("mlir.", "tile_mlir.driver.compiler",
                                                                       "tile_mlir._mlir"))]
        assert not bad, f"the worker imported {bad[:5]}"
        main = sys.modules["__main__"]  # the spawn bootstrap (python -c), not a re-run script
        assert getattr(main, "__file__", None) is None, f"the worker re-ran {main.__file__}"
        return super().cuModuleLoadData(data)

    EXIT_N = 0xDEAD  # the copy kernel with n == EXIT_N makes the worker process exit (code 3)

    def _launch(self, f, grid, block, smem, stream, params, cluster):
        if f.name == "selftest_copy_u8" and params:
            slot = (ctypes.c_void_p * 3).from_address(params)[2]
            if ctypes.c_uint32.from_address(slot).value == self.EXIT_N:
                os._exit(3)
        return super()._launch(f, grid, block, smem, stream, params, cluster)


WORKER_DRIVER = "runtime_fakes:WorkerFakeDriver"  # TILE_MLIR_WORKER_DRIVER for the tests' workers
