"""The GPU backend: one kernel bound to the current CUDA context and launched through the driver API.

Binding (once per context) loads the cubin, or the PTX for the driver to JIT (module.py), opts the
function into its dynamic shared memory and cluster size, and builds the parameter pack
(args.ParamPack, with the slots of the Artifact's tensor maps after the kernel's own parameters:
tensor_map.MapSlots) and the default launch (launch.Launcher); a call then only fills the pack's slots,
and re-encodes a tensor map when its buffer's address changed.

Buffers that are device arrays or raw pointers are passed by pointer, asynchronously on ``stream``.
Host arrays are staged (args.HostBuffer: C-contiguous, packed for elements of a packed parameter):
copied into fresh device memory, launched, copied back (the buffers the kernel writes,
Artifact.outputs) and synchronised, then the device memory is freed.

After a launch of device arrays, ``replay`` is the default launcher, whose pack holds those
arguments: the caller's fast path may repeat it (fast_path.py). A context reset (device.py) drops
the binding, so the next call binds again.
"""
from __future__ import annotations

from . import device as _device
from . import driver as _d
from . import module as _module
from .arch import can_run, refusal_message
from .args import ParamPack
from .backend import Backend, LaunchResult
from .errors import IncompatibleDeviceError
from .launch import Launcher, check_launch_dims, stream_handle
from .memory import copy_to_device, copy_to_host
from .tensor_map import MapSlots

__all__ = ["GpuBackend", "Binding"]

_MAX_LAUNCHERS = 64  # launch configurations kept per kernel (grid/block/stream overrides)


class Binding:
    """A kernel loaded in the current context: function, parameter pack, launchers."""

    __slots__ = ("device", "loaded", "pack", "default", "launchers", "maps", "shapes")

    def __init__(self, device, loaded, pack, default, maps=None):
        self.device, self.loaded, self.pack, self.default = device, loaded, pack, default
        self.launchers: dict[tuple, Launcher] = {}
        self.maps = maps  # tensor_map.MapSlots of the artifact's tensor maps, or None
        self.shapes: dict[int, tuple] = {}  # parameter index -> this launch's array shape (runtime extents)

    def fill_maps(self) -> None:
        """Encode the tensor maps for the device addresses now in their buffers' slots."""
        if self.maps is not None:
            self.maps.fill(self.pack.slots, self.shapes)


class GpuBackend(Backend):
    name = "gpu"

    def __init__(self, artifact, sig):
        super().__init__(artifact, sig)
        self._bound: Binding | None = None
        self._digest: dict[str, str] = {}  # image -> content digest (the module cache key)
        _device.on_context_reset(obj=self)

    def bind(self) -> Binding:
        """Load the kernel in the current context (once); refuses a device that cannot run it."""
        if self._bound is not None:
            return self._bound
        art, name = self.artifact, self.sig.kernel
        dev = _device.current_device()
        runnable, image = can_run(art.arch, dev.cc)
        if not runnable:
            raise IncompatibleDeviceError(refusal_message(art.arch, dev.name, dev.cc))
        if not art.cubin:
            image = "ptx"
        digest = self._digest.get(image)
        if digest is None:
            digest = self._digest[image] = _module.image_digest(art, image)
        lk = _module.get_function(dev, art, image, digest)
        smem = int(art.dynamic_smem)
        _module.ensure_dynamic_smem(dev, lk, smem, name)
        csize = self.cluster[0] * self.cluster[1] * self.cluster[2]
        if csize > 1:
            _module.ensure_cluster_size(lk, csize, name)
        check_launch_dims(name, self.grid, self.block, self.cluster, lk.max_threads)
        maps = MapSlots(art.tensor_maps, self.sig.params) if art.tensor_maps else None
        pack = ParamPack(self.sig.params, self.sig.dtypes, maps.addresses if maps else ())
        default = Launcher(lk.function, self.grid, self.block, smem, 0, pack.address, self.cluster)
        self._bound = Binding(dev, lk, pack, default, maps)
        return self._bound

    def run(self, args, grid, block, stream) -> LaunchResult:
        self.replay = None  # the slots are about to change
        b = self._bound or self.bind()
        sig, slots = self.sig, b.pack.slots
        host = []
        for i, p in enumerate(sig.params):
            if p.kind == "buffer":
                v, bits = sig.buffer(i, args[i])
                if p.dynamic:
                    b.shapes[i] = tuple(v.shape)
                if v.kind == "host":
                    host.append((i, sig.host(i, v, bits)))
                else:
                    slots[i].value = v.ptr
            else:
                slots[i].value = sig.scalar(i, args[i])
        ln = self._launcher(b, grid, block, stream)
        result = LaunchResult("gpu", sig.by_name(args), sig.kernel, written=sig.written_names)
        if host:
            self._staged_launch(b, ln, host, stream)
        else:
            b.fill_maps()
            self._launch(ln)
            self.replay = b.default
        return result

    def launch_failed(self, err, ln: Launcher | None = None) -> None:
        """Raise the CudaError of a failed launch (default: of the default launcher), after one
        retry when the calling thread merely had no current context."""
        if ln is None:
            ln = self._bound.default
        name = _d.error_name(err)
        if name in ("CUDA_ERROR_INVALID_CONTEXT", "CUDA_ERROR_CONTEXT_IS_DESTROYED") \
                and self._bound is not None:
            self._bound.device.make_current()  # a thread that never used the context
            err = ln.fn(*ln.args)[0]
            if not err:
                return
        _d.raise_error(ln.call_name, err, detail=f"kernel {self.sig.kernel}")

    def _invalidate(self) -> None:
        """The context was reset: handles are gone, bind again at the next call."""
        self._bound = self.replay = None

    def _launcher(self, b: Binding, grid, block, stream) -> Launcher:
        if grid is None and block is None and stream is None:
            return b.default
        g, bl = self.dims(grid, block)
        s = stream_handle(stream)
        key = (g, bl, s)
        ln = b.launchers.get(key)
        if ln is None:
            check_launch_dims(self.sig.kernel, g, bl, self.cluster, b.loaded.max_threads)
            if len(b.launchers) >= _MAX_LAUNCHERS:
                b.launchers.clear()
            ln = b.launchers[key] = Launcher(b.loaded.function, g, bl, int(self.artifact.dynamic_smem),
                                             s, b.pack.address, self.cluster)
        return ln

    def _launch(self, ln: Launcher) -> None:
        err = ln.fn(*ln.args)[0]
        if err:
            self.launch_failed(err, ln)

    def _staged_launch(self, b: Binding, ln: Launcher, host, stream) -> None:
        drv = _d.drv()
        hs = drv.CUstream(stream_handle(stream))
        gen = b.device.generation
        staged = []  # (HostBuffer, device pointer)
        try:
            for i, hb in host:
                ptr = int(_d.call("cuMemAlloc", max(hb.data.nbytes, 1)))
                staged.append((hb, ptr))
                b.pack.slots[i].value = ptr
                copy_to_device(ptr, hb.data, hs)
            b.fill_maps()
            self._launch(ln)
            for hb, ptr in staged:
                if hb.output:  # data is writeable: the caller's array (checked) or a copy
                    copy_to_host(hb.data, ptr, hs)
            _d.call("cuStreamSynchronize", hs, detail=f"after kernel {self.sig.kernel}")
            for hb, _ in staged:
                hb.write_back()
        finally:
            if b.device.generation == gen:
                for _, ptr in staged:
                    drv.cuMemFree(ptr)
