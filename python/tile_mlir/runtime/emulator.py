"""The emulator backend: ``tile_mlir.sim.run_ptx`` on the artifact's PTX, with numpy memories.

Host arrays are run on in place when they are C-contiguous and writeable, else through a
C-contiguous copy (args.HostBuffer: packed for elements of a packed parameter) written back after
the run for the buffers the kernel writes; the emulator never sees a Fortran-order, strided or
read-only array. Device arrays are copied to the host for the run and back to the device after it
(outputs only); raw device pointers cannot be used (the emulator cannot read them). Scalars go in
as the emulator takes them: ints for integer (and 16-bit float bit-pattern) params, Python floats
for .f32/.f64 params; tensor maps as tile-sim's TensorMap over their buffer's array (runtime/tensor_map.py).
``stream`` is ignored: the run is synchronous.
"""
from __future__ import annotations

import numpy as np

from . import device as _device
from .backend import Backend, LaunchResult
from .dtypes import BIT_PATTERNS
from .errors import ArgumentTypeError, BackendUnavailableError, SimRunError
from .memory import copy_to_device, copy_to_host
from .tensor_map import sim_tensor_map

__all__ = ["SimBackend"]


class SimBackend(Backend):
    name = "sim"

    def __init__(self, artifact, sig, fallback: str = "", options=None):
        super().__init__(artifact, sig)
        self.fallback = fallback  # why the GPU does not run it, when the emulator was not asked for
        # run_ptx's workers / executor / max_steps / max_seconds / progress / strict, from jit();
        # kernels we compiled keep every ISA rule, so they run strict unless asked (jit(strict=False),
        # tile-run --lenient: findings listed instead, sim/findings.py)
        self.options = {"strict": True, **(options or {})}

    def run(self, args, grid, block, stream) -> LaunchResult:
        try:
            # (late: import tile_mlir.runtime and tile-run --help load no tile-sim)
            from tile_mlir.sim import EmulationError, run_ptx
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
            v, bits = sig.buffer(i, args[i])
            if v.kind == "host":
                hb = sig.host(i, v, bits, writable=True)
                back_host.append(hb)
                sim_args.append(hb.data)
            elif v.kind == "device":
                if _device.poisoned:
                    raise _device.context_lost(sig.label(i), "a device array")
                h = np.empty(v.shape, BIT_PATTERNS.get(v.dtype, v.dtype))
                _device.current_device()
                copy_to_host(h, v.ptr)
                if i in sig.written:
                    back_dev.append((v.ptr, h))
                sim_args.append(h)
            else:
                raise ArgumentTypeError(f"{sig.label(i)}: a raw device pointer cannot be used with "
                                        "the emulator")
        index = {p.name: i for i, p in enumerate(sig.params)}
        # the maps after the kernel's own parameters, over the very arrays their buffers got (tile-sim binds
        # a map to the allocation of the argument that `is` its array)
        sim_args += [sim_tensor_map(tm, sim_args[index[tm.buffer]], bool(sig.params[index[tm.buffer]].dynamic))
                     for tm in self.artifact.tensor_maps]
        g, bl = self.dims(grid, block)
        try:
            res = run_ptx(self.artifact.ptx, sig.kernel, sim_args, grid=g, block=bl,
                          cluster=self.cluster, dynamic_smem=int(self.artifact.dynamic_smem),
                          **self.options)
        except EmulationError as e:  # one hierarchy: a TileRuntimeError (errors.SimRunError)
            raise SimRunError(e, kernel=sig.kernel, ptx=self.artifact.ptx) from e
        for hb in back_host:
            hb.write_back()
        for ptr, h in back_dev:
            copy_to_device(ptr, h)
        return LaunchResult("sim", sig.by_name(args), sig.kernel, sim=res, written=sig.written_names)
