"""The emulator backend: ``tile_mlir.sim.run_ptx`` on the artifact's PTX, with numpy memories.

Host arrays are run on in place (a C-contiguous writeable array is passed as is, any other through
a copy written back after the run); device arrays are copied to the host for the run and back to
the device after it; raw device pointers cannot be used (the emulator cannot read them). Scalars go
in as the emulator takes them: ints for integer (and 16-bit float bit-pattern) params, Python
floats for .f32/.f64 params. ``stream`` is ignored: the run is synchronous.
"""
from __future__ import annotations

import numpy as np

from . import device as _device
from .backend import Backend, LaunchResult
from .errors import ArgumentError, BackendUnavailableError
from .memory import copy_to_device, copy_to_host

__all__ = ["SimBackend"]


class SimBackend(Backend):
    name = "sim"

    def __init__(self, artifact, sig, fallback: str = ""):
        super().__init__(artifact, sig)
        self.fallback = fallback  # why the GPU does not run it, when the emulator was not asked for

    def run(self, args, grid, block, stream) -> LaunchResult:
        try:
            from tile_mlir.sim import run_ptx
        except ImportError as e:
            why = f" (no GPU run: {self.fallback})" if self.fallback else ""
            raise BackendUnavailableError(
                f"{self.sig.kernel}: the PTX emulator tile_mlir.sim.run_ptx is unavailable ({e})"
                + why) from e
        sig = self.sig
        sim_args, back_host, back_dev = [], [], []
        for i, p in enumerate(sig.params):
            if p.kind != "buffer":
                sim_args.append(sig.scalar(i, args[i]))
                continue
            v = sig.buffer(i, args[i])
            if v.kind == "host":
                arr = v.host
                c = arr if arr.flags.c_contiguous and arr.flags.writeable else np.array(arr)
                if c is not arr and arr.flags.writeable:
                    back_host.append((arr, c))
                sim_args.append(c)
            elif v.kind == "device":
                if _device.poisoned:
                    raise _device.context_lost(sig.label(i), "a device array")
                h = np.empty(v.shape, "uint16" if v.dtype == "bfloat16" else v.dtype)
                _device.current_device()
                copy_to_host(h, v.ptr)
                back_dev.append((v.ptr, h))
                sim_args.append(h)
            else:
                raise ArgumentError(f"{sig.label(i)}: a raw device pointer cannot be used with the "
                                    "emulator")
        g, bl = self.dims(grid, block)
        res = run_ptx(self.artifact.ptx, sig.kernel, sim_args, grid=g, block=bl,
                      cluster=self.cluster, dynamic_smem=int(self.artifact.dynamic_smem))
        for arr, c in back_host:
            arr[...] = c
        for ptr, h in back_dev:
            copy_to_device(ptr, h)
        return LaunchResult("sim", sig.outputs(args), sig.kernel, sim=res)
