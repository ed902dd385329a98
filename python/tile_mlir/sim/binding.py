"""Memory binding of tile-sim's machine: the layout of a kernel's shared, parameter, local and
global memory (docs/emulator.md §5), the binding of run_ptx's arguments to it (arrays, scalars,
tensor maps, §9) and the copy of global memory back into the arrays after the run."""

from __future__ import annotations

import numpy as np

from . import launch, tensor_map_bytes
from . import memory as mem
from .by_value import ByValue, DeviceTable
from .codegen import f32_to_bits, f64_to_bits
from .errors import EmulationError
from .tensor_map import TENSOR_MAP_BYTES, TensorMap


class MemoryBinding:
    """Mixin of :class:`~tile_mlir.sim.machine.Machine`: needs ``module``, ``fn``, ``gmem``,
    ``symbols``, ``nthreads``, ``grid``, ``cluster_dims`` and ``dynamic_smem``."""

    def _layout_shared(self):
        off = 0
        dyn = []
        for v in list(self.module.vars) + list(self.fn.vars):
            if v.space != "shared":
                continue
            if v.extern:
                dyn.append(v)
                continue
            off = (off + v.align - 1) // v.align * v.align
            self.symbols[v] = ("shared", off)
            off += v.size
        self.static_smem = off
        dbase = (off + mem.DYN_SMEM_ALIGN - 1) // mem.DYN_SMEM_ALIGN * mem.DYN_SMEM_ALIGN
        for v in dyn:
            self.symbols[v] = ("shared", dbase)
        self.smem_size = (dbase + self.dynamic_smem) if (dyn or self.dynamic_smem) else off
        if self.smem_size > launch.MAX_SMEM:
            raise EmulationError(f"shared memory of {self.smem_size} bytes exceeds the "
                                 f"{launch.MAX_SMEM}-byte limit per CTA")

    def _layout_params(self):
        off = 0
        self.param_layout = []
        for p in self.fn.params:
            off = (off + p.align - 1) // p.align * p.align
            self.symbols[p] = ("param", off)
            self.param_layout.append((p, off))
            off += p.size
        if off > launch.MAX_PARAM_BYTES:
            raise EmulationError(f"the parameters of {self.fn.name} take {off} bytes, more than "
                                 f"the {launch.MAX_PARAM_BYTES} a kernel may have")
        self.param_buf = bytearray(off)

    def _global_vars(self):
        return [v for v in self.module.vars + self.fn.vars if v.space in ("global", "const")]

    def _check_memory(self, args, *, slots, tmem):
        gbytes = sum(v.size for v in self._global_vars()) + sum(
            a.global_address.nbytes if isinstance(a, TensorMap) else
            sum(getattr(x, "nbytes", 0) for x in a.pointers.values())
            if isinstance(a, (ByValue, DeviceTable)) else
            getattr(a, "nbytes", 0) for a in args)
        cx, cy, cz = self.cluster_dims
        launch.check_memory(self.fn.name, ctas=self.grid[0] * self.grid[1] * self.grid[2],
                            cluster_ctas=cx * cy * cz, threads=self.nthreads, smem=self.smem_size,
                            slots=slots, local=self.local_size, global_bytes=gbytes, tmem=tmem)

    def _layout_globals(self):
        for v in self._global_vars():
            data = bytearray(v.size)
            if v.init:
                esz = max(1, int(v.type[1:]) // 8 if v.type[1:].isdigit() else 4)
                for k, op in enumerate(v.init):
                    val = op[1] if op[0] in ("imm", "fimm") else 0
                    data[k * esz:(k + 1) * esz] = (val & ((1 << (8 * esz)) - 1)).to_bytes(
                        esz, "little")
            base = self.gmem.alloc(v.size, f".{v.space} {v.name}", bytes(data),
                                   align=max(v.align, 16))
            self.symbols[v] = (v.space, base)

    def _layout_local(self):
        off = 0
        for v in self.fn.vars:
            if v.space != "local":
                continue
            off = (off + v.align - 1) // v.align * v.align
            self.symbols[v] = ("local", off)
            off += v.size
        if off > launch.MAX_LOCAL_PER_THREAD:
            raise EmulationError(f"local memory of {off} bytes per thread exceeds the "
                                 f"{launch.MAX_LOCAL_PER_THREAD}-byte limit")
        self.local_size = off

    # ------------------------------------------------------------------ arguments
    def bind_args(self, args):
        params = self.param_layout
        if len(args) != len(params):
            raise EmulationError(f"kernel {self.fn.name} has {len(params)} parameters "
                                 f"({[p.name for p, _ in params]}), got {len(args)} arguments")
        self.bound_arrays = []
        self.tensor_maps = {}  # .param offset -> (TensorMap, its globalAddress)
        maps = []
        for (p, off), a in zip(params, args):
            if isinstance(a, TensorMap):
                maps.append((p, off, a))
                continue
            if isinstance(a, ByValue):
                self._bind_by_value(p, off, a)
                continue
            if isinstance(a, DeviceTable):
                if p.size != 8:
                    raise EmulationError(f"DeviceTable bound to non-64-bit parameter {p.name}")
                val = self._array_base(a, f"device table for {p.name}")
            elif isinstance(a, np.ndarray):
                if p.size != 8:
                    raise EmulationError(f"numpy array bound to non-64-bit parameter {p.name}")
                if not a.flags.c_contiguous:
                    raise EmulationError(f"array for {p.name} must be C-contiguous")
                if a.dtype.hasobject:
                    raise EmulationError(f"array for {p.name} holds Python objects, not bytes")
                val = self._array_base(a, f"global buffer for {p.name}")
            elif isinstance(a, (bool, int, np.integer)):
                val = int(a)
            elif isinstance(a, (float, np.floating)):
                if p.type == "f32":
                    val = f32_to_bits(float(a))
                elif p.type == "f64":
                    val = f64_to_bits(float(a))
                else:
                    raise EmulationError(f"float argument for non-float parameter {p.name}")
            else:
                raise EmulationError(f"unsupported argument type {type(a).__name__} for {p.name}")
            n = p.size
            self.param_buf[off:off + n] = (val & ((1 << (8 * n)) - 1)).to_bytes(n, "little")
        for p, off, tm in maps:
            self._bind_tensor_map(p, off, tm)

    def _array_base(self, a, what):
        """The global address of array ``a``: the allocation of an earlier argument that is the
        same object, else a new one holding a copy of its bytes."""
        base = next((b for arr, b in self.bound_arrays if arr is a), None)
        if base is None and isinstance(a, DeviceTable):
            base = self.gmem.alloc(a.nbytes, what, self._pointer_bytes(a.data, a.pointers, what))
            self.bound_arrays.append((a, base))
        elif base is None:
            base = self.gmem.alloc(a.nbytes, what, a.view(np.uint8).reshape(-1).tobytes())
            self.bound_arrays.append((a, base))
        return base

    def _pointer_bytes(self, raw, pointers, what):
        """``raw`` with each 64-bit field at an offset of ``pointers`` the address of its array (a
        numpy array or a nested DeviceTable) plus the byte offset the field holds (an address
        inside the allocation, as ``base + n`` of a host pointer: sim/by_value.py)."""
        data = bytearray(raw)
        for o, a in sorted(pointers.items()):
            if not isinstance(a, DeviceTable) and (not isinstance(a, np.ndarray) or
                                                   a.dtype.hasobject or not a.flags.c_contiguous):
                raise EmulationError(f"{what}: the pointer field at byte {o} needs a C-contiguous "
                                     f"numpy array of plain values or a DeviceTable")
            if o % 8 or not 0 <= o <= len(data) - 8:
                raise EmulationError(f"{what}: pointer field offset {o} is not an 8-byte aligned "
                                     f"field inside its {len(data)} bytes")
            inner = int.from_bytes(data[o:o + 8], "little")
            if inner >= max(a.nbytes, 1):
                raise EmulationError(f"{what}: the pointer field at byte {o} holds offset {inner}, "
                                     f"past the end of its {a.nbytes}-byte array")
            data[o:o + 8] = (self._array_base(a, f"{what}+{o}") + inner).to_bytes(8, "little")
        return bytes(data)

    def _bind_by_value(self, p, off, bv):
        """A by-value struct with pointer fields (sim/by_value.py): its bytes, each pointer field
        the address of its array."""
        if len(bv.data) != p.size:
            raise EmulationError(f"ByValue for {p.name}: {len(bv.data)} bytes for a {p.size}-byte "
                                 f"parameter")
        self.param_buf[off:off + p.size] = self._pointer_bytes(bv.data, bv.pointers,
                                                               f"ByValue for {p.name}")

    def _bind_tensor_map(self, p, off, tm):
        """A TensorMap binds to a 128-byte .param object, kept by its offset (docs/emulator.md
        §9); its array is the allocation of the pointer argument that is the same object, else
        one of its own."""
        if p.size != TENSOR_MAP_BYTES or off % 64:
            raise EmulationError(f"a TensorMap binds to a `.param .align 64 .b8 {p.name}[128]`, "
                                 f"but {p.name} is {p.size} bytes at offset {off} (the driver "
                                 f"needs the 128-byte CUtensorMap 64-byte aligned)")
        a = tm.global_address
        base = self._array_base(a, f"global buffer of the tensor map {p.name}")
        if tm.offset > a.nbytes:
            raise EmulationError(f"TensorMap {p.name}: offset {tm.offset} is past the end of "
                                 f"its {a.nbytes}-byte array")
        self.tensor_maps[off] = (tm, base + tm.offset)
        # its bytes in tile-sim's map layout, for kernels that copy and edit it
        self.param_buf[off:off + TENSOR_MAP_BYTES] = tensor_map_bytes.encode(tm, base + tm.offset)

    def copy_back(self):
        for a, base in self.bound_arrays:
            if isinstance(a, DeviceTable):  # an input of addresses: not copied back
                continue
            buf, o = self.gmem.find(base, a.nbytes) if a.nbytes else (b"", 0)
            if a.nbytes:
                a.view(np.uint8).reshape(-1)[:] = np.frombuffer(bytes(buf[o:o + a.nbytes]),
                                                                dtype=np.uint8)

