"""The compiled form of one tile kernel: what compile() returns and the runner consumes.

An Artifact imports no MLIR: it can be saved next to its cubin and loaded on a machine that has only
numpy and cuda-bindings (the H200 used for Hopper runs has no nvidia-cutlass-dsl).

Names in an Artifact become Python names and file names, so they are checked wherever an Artifact
is made, from the compiler or from a manifest: a parameter name is a Python identifier that is
not a keyword nor one of a kernel call's own keywords (``RESERVED_NAMES``); a kernel name follows
the PTX identifier grammar (no path separators, no dots); :meth:`Artifact.save` writes only inside
its directory.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import keyword
import math
import os
import re
from dataclasses import dataclass, field

from ..errors import ArgumentError, ArgumentTypeError
from .manifest import check_digests, check_tensor_maps, digests

__all__ = ["Param", "TensorMapParam", "Artifact", "RESERVED_NAMES", "is_param_name", "DUMP_DIR_ENV"]

#: names a directory where every compile writes its artifact and each stage's IR (compiler.py, through save)
DUMP_DIR_ENV = "TILE_MLIR_DUMP_DIR"
#: the most Artifact.load reads of a manifest, and of its PTX or cubin (a kernel's are KiB to a few MiB)
MAX_MANIFEST_BYTES = 16 << 20
MAX_CODE_BYTES = 256 << 20
#: a kernel call's keyword-only launch options (runtime/jit.py), which no parameter may be named
RESERVED_NAMES = ("grid", "block", "stream")
KINDS = ("buffer", "scalar")
# PTX ISA, "Identifiers": followsym [a-zA-Z0-9_$]; [a-zA-Z]{followsym}* | [_$%]{followsym}+
_PTX_IDENTIFIER = re.compile(r"[a-zA-Z][a-zA-Z0-9_$]*|[_$%][a-zA-Z0-9_$]+")


def is_param_name(name) -> bool:
    """Whether ``name`` can name a kernel parameter (a keyword argument of the kernel call)."""
    return (isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)
            and name not in RESERVED_NAMES)


@dataclass(frozen=True)
class Param:
    """One kernel parameter, in PTX .param order.

    kind "buffer": a global-memory buffer, passed as a 64-bit device pointer; ``dtype`` and
    ``shape`` are those of its elements (a numpy dtype name: "uint8", "float32", and through
    ml_dtypes "bfloat16", "float8_e4m3fn", ..., see runtime/dtypes.py). ``bits`` (1 to 7) marks
    elements narrower than a byte, which the buffer holds packed (:attr:`packed_shape`); 0 for
    the others. kind "scalar": passed by value; ``dtype`` is its numpy dtype name.
    """

    name: str
    kind: str  # "buffer" | "scalar"
    dtype: str  # numpy dtype name, e.g. "uint8", "int32", "float32", "bfloat16"
    shape: tuple[int, ...] = ()
    bits: int = 0  # element width when under 8 bits (packed), else 0
    dynamic: tuple[int, ...] = ()  # runtime dims: any extent 1 .. shape[d] at launch

    def __post_init__(self):
        if not is_param_name(self.name):
            raise ArgumentError(f"parameter name {self.name!r} is not a Python identifier, or is a "
                                f"keyword or one of {RESERVED_NAMES}")
        if self.kind not in KINDS:
            raise ArgumentError(f"parameter '{self.name}': kind must be one of {KINDS}, got "
                                f"{self.kind!r}")
        if not isinstance(self.dtype, str) or not self.dtype:
            raise ArgumentTypeError(f"parameter '{self.name}': dtype must be a dtype name, got "
                                    f"{self.dtype!r}")
        if not isinstance(self.shape, tuple) or not all(_is_count(s) for s in self.shape):
            raise ArgumentError(f"parameter '{self.name}': shape must be a tuple of ints >= 0, "
                                f"got {self.shape!r}")
        if not (_is_count(self.bits) and self.bits < 8) or (self.bits and self.kind != "buffer"):
            raise ArgumentError(f"parameter '{self.name}': bits must be 0, or 1 to 7 for a "
                                f"buffer, got {self.bits!r}")
        if not (isinstance(self.dynamic, tuple) and all(_is_count(d) and d < len(self.shape) for d in self.dynamic)
                and len(set(self.dynamic)) == len(self.dynamic)) or (self.dynamic and (self.bits or self.kind != "buffer")):
            raise ArgumentError(f"parameter '{self.name}': dynamic must list distinct dims of a whole-byte "
                                f"buffer's shape, got {self.dynamic!r}")

    @property
    def packed_shape(self) -> tuple[int, ...]:
        """The shape of the buffer's bytes: rows of packed elements, or one flat byte array when
        rows end mid-byte (they then run on into the next byte); ``shape`` when not packed."""
        if not self.bits or not self.shape:
            return self.shape
        row_bits = self.shape[-1] * self.bits
        if row_bits % 8 == 0:
            return self.shape[:-1] + (row_bits // 8,)
        return (-(-math.prod(self.shape) * self.bits // 8),)

    def to_json(self) -> dict:
        d = {"name": self.name, "kind": self.kind, "dtype": self.dtype, "shape": list(self.shape)}
        if self.bits:
            d["bits"] = self.bits
        if self.dynamic:
            d["dynamic"] = list(self.dynamic)
        return d

    @staticmethod
    def from_json(d: dict) -> "Param":
        if not isinstance(d, dict):
            raise ArgumentError(f"a parameter must be a JSON object, got {d!r}")
        shape = _get(d, "shape", list, [], "parameter")
        return Param(_get(d, "name", str, None, "parameter"), _get(d, "kind", str, None, "parameter"),
                     _get(d, "dtype", str, None, "parameter"), tuple(shape),
                     _get(d, "bits", int, 0, "parameter"), tuple(_get(d, "dynamic", list, [], "parameter")))


# the vocabulary of cuTensorMapEncodeTiled's enums (CUDA driver API), as runtime/tensor_map.py and
# tile-sim's TensorMap take them
TMA_DATA_TYPES = ("uint8", "uint16", "uint32", "int32", "uint64", "int64", "float16", "float32", "float64",
                  "bfloat16")
TMA_DATA_BYTES = {"uint8": 1, "uint16": 2, "float16": 2, "bfloat16": 2, "uint32": 4, "int32": 4,
                  "float32": 4, "uint64": 8, "int64": 8, "float64": 8}
_TMA_CHOICES = {"interleave": ("none",), "swizzle": ("none", "32b", "64b", "128b"),
                "l2_promotion": ("none", "64b", "128b", "256b"), "oob_fill": ("none", "nan_request_zero_fma")}


@dataclass(frozen=True)
class TensorMapParam:
    """A tiled TMA tensor map the kernel takes as a 128-byte grid-constant parameter, after its
    :class:`Param` s in declaration order (tile.tensor_map; docs/tma.md §4). The runtime encodes it at
    launch from the array given for buffer parameter ``buffer``, with cuTensorMapEncodeTiled's
    parameters: dims innermost first, ``global_strides`` in bytes for dims 1..rank-1."""

    buffer: str  # the buffer parameter it describes
    data_type: str  # CUtensorMapDataType, TMA_DATA_TYPES
    global_dim: tuple[int, ...]
    global_strides: tuple[int, ...]
    box_dim: tuple[int, ...]
    element_strides: tuple[int, ...]
    interleave: str = "none"
    swizzle: str = "none"
    l2_promotion: str = "none"
    oob_fill: str = "none"

    def __post_init__(self):
        what = f"tensor map of '{self.buffer}'"
        if not isinstance(self.buffer, str) or not is_param_name(self.buffer):
            raise ArgumentError(f"tensor map: buffer must name a parameter, got {self.buffer!r}")
        if self.data_type not in TMA_DATA_TYPES:
            raise ArgumentError(f"{what}: data_type must be one of {TMA_DATA_TYPES}, got {self.data_type!r}")
        rank = len(self.global_dim) if isinstance(self.global_dim, tuple) else 0
        for name, n in (("global_dim", rank), ("global_strides", rank - 1), ("box_dim", rank),
                        ("element_strides", rank)):
            v = getattr(self, name)
            if not (isinstance(v, tuple) and len(v) == n and all(_is_count(x) and x >= 1 for x in v)):
                raise ArgumentError(f"{what}: {name} must be {n} ints >= 1 (rank {rank}), got {v!r}")
        if not 1 <= rank <= 5:
            raise ArgumentError(f"{what}: rank must be 1 to 5, got {rank}")
        for name, choices in _TMA_CHOICES.items():
            if getattr(self, name) not in choices:
                raise ArgumentError(f"{what}: {name} must be one of {choices}, got {getattr(self, name)!r}")

    @property
    def elem_bytes(self) -> int:
        return TMA_DATA_BYTES[self.data_type]

    def to_json(self) -> dict:
        return {f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v
                for f in dataclasses.fields(self)}

    @staticmethod
    def from_json(d: dict) -> "TensorMapParam":
        if not isinstance(d, dict):
            raise ArgumentError(f"a tensor map must be a JSON object, got {d!r}")
        kw = {}
        for f in dataclasses.fields(TensorMapParam):
            if f.type.startswith("tuple"):
                kw[f.name] = tuple(_get(d, f.name, list, None, "tensor map"))
            else:
                kw[f.name] = _get(d, f.name, str, f.default if f.default is not dataclasses.MISSING
                                  else _REQUIRED, "tensor map")
        return TensorMapParam(**kw)


@dataclass(frozen=True)
class Artifact:
    """A compiled kernel: its PTX and cubin, parameters, target and launch shape.

    ``meta["outputs"]`` (when recorded, as compile() does) names the buffer parameters the kernel
    writes; :attr:`outputs` is every buffer when it is not recorded.
    """

    kernel_name: str
    arch: str  # e.g. "sm_100a", "sm_90a"
    ptx: str
    cubin: bytes
    params: tuple[Param, ...]
    block: tuple[int, int, int] = (128, 1, 1)
    grid: tuple[int, int, int] = (1, 1, 1)
    cluster: tuple[int, int, int] = (1, 1, 1)
    dynamic_smem: int = 0
    key: str = ""  # cache key of the source (IR hash, arch, options)
    meta: dict = field(default_factory=dict, compare=False, hash=False)
    tensor_maps: tuple[TensorMapParam, ...] = ()  # parameters after `params`, encoded at launch
    # the IR of the stages compile(keep=...) kept, by name (stages.ASM_NAMES); read it through `asm`
    kept: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __repr__(self) -> str:
        params = ", ".join(f"{p.name}: {p.dtype}[{'x'.join('?' if i in p.dynamic else str(n) for i, n in enumerate(p.shape))}]"
                           if p.kind == "buffer"
                           else f"{p.name}: {p.dtype}" for p in self.params)
        return (f"Artifact({self.kernel_name!r}, arch={self.arch!r}, params=({params}), grid={self.grid}, "
                f"block={self.block}, ptx={len(self.ptx)} chars, cubin={len(self.cubin)} bytes, "
                f"asm={list(self.asm)})")

    @property
    def asm(self) -> "Asm":
        """Each stage's IR by name, as Triton's kernel.asm: "ptx", "sass" (the cubin disassembled,
        where nvdisasm exists), and what compile(keep=...) kept: "tile", "dispatched", "nvvm", "llvm", "llvmir"."""
        return Asm(self)

    def __post_init__(self):
        if not isinstance(self.kernel_name, str) or not _PTX_IDENTIFIER.fullmatch(self.kernel_name):
            raise ArgumentError(f"kernel name {self.kernel_name!r} is not a PTX identifier "
                                "([a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+)")
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ArgumentError(f"{self.kernel_name}: parameter names repeat: {names}")
        buffers = {p.name for p in self.params if p.kind == "buffer"}
        for tm in self.tensor_maps:
            if tm.buffer not in buffers:
                raise ArgumentError(f"{self.kernel_name}: a tensor map describes '{tm.buffer}', which is "
                                    f"not a buffer parameter")
        outs = self.meta.get("outputs")
        if outs is not None and not (isinstance(outs, list) and set(outs) <= set(names)):
            raise ArgumentError(f"{self.kernel_name}: meta['outputs'] must list parameter names, "
                                f"got {outs!r}")

    @property
    def sm(self) -> int:
        """The SM number the cubin targets (100 for sm_100a)."""
        return int("".join(ch for ch in self.arch.split("_", 1)[1] if ch.isdigit()))

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.cubin).hexdigest()[:16]

    @property
    def outputs(self) -> tuple[str, ...]:
        """Names of the buffer parameters the kernel may write (every buffer if not recorded)."""
        outs = self.meta.get("outputs")
        return tuple(p.name for p in self.params
                     if p.kind == "buffer" and (outs is None or p.name in outs))

    def manifest(self) -> dict:
        d = dataclasses.asdict(self)
        d.pop("ptx"), d.pop("cubin"), d.pop("kept")
        d["params"] = [p.to_json() for p in self.params]
        d.pop("tensor_maps")
        if self.tensor_maps:  # (absent otherwise: the manifests of kernels without maps stay as they were)
            d["tensor_maps"] = [tm.to_json() for tm in self.tensor_maps]
        d["digests"] = digests(self)  # (checked by from_manifest: manifest.py)
        return d

    def save(self, directory) -> str:
        """Write <kernel>.json, <kernel>.ptx and <kernel>.cubin into directory, and <kernel>.<name>.mlir
        for each IR kept (`asm`; the LLVM IR as <kernel>.llvmir.ll); return the manifest path. Refuses
        (ArgumentError), before writing anything, a path that resolves outside the directory or a symbolic
        link there (safe_io). A kernel name that is no plain file name, or too long for one, is
        written as a bounded stem of it (safe_io.file_stem: a prefix and a hash)."""
        from ..frontend.safe_io import file_stem, write_files  # (late: import tile_mlir.artifact loads no safe_io)

        name = file_stem(self.kernel_name)
        files = {name + ".ptx": (self.ptx or self.kept.get("ptx", "")).encode(), name + ".cubin": bytes(self.cubin)}
        files.update((f"{name}.{k}.{'ll' if k == 'llvmir' else 'mlir'}", text.encode())
                     for k, text in self.kept.items() if k not in ("ptx", "sass"))
        files[name + ".json"] = json.dumps(self.manifest(), indent=1).encode()
        return write_files(_fspath(directory, "directory"), files)[-1]

    @staticmethod
    def load(manifest_path) -> "Artifact":
        """The Artifact saved as ``manifest_path`` (<kernel>.json, beside its .ptx and .cubin)."""
        from ..frontend.safe_io import read_file  # (late: import tile_mlir.artifact loads no safe_io)

        path = _fspath(manifest_path, "manifest_path")
        base = path[: -len(".json")] if path.endswith(".json") else path
        # (each file a regular file of bounded size, the PTX UTF-8: safe_io.read_file says which not)
        raw = read_file(base + ".json", limit=MAX_MANIFEST_BYTES, what="artifact manifest")
        try:
            d = json.loads(raw)
        except (ValueError, RecursionError) as e:  # bad JSON or bad UTF-8, nesting past the parser's depth
            raise ArgumentError(f"{base}.json: not a JSON manifest ({type(e).__name__}: {e})") from None
        ptx = read_file(base + ".ptx", limit=MAX_CODE_BYTES, what="artifact PTX", text=True)
        cubin = read_file(base + ".cubin", limit=MAX_CODE_BYTES, what="artifact cubin")
        try:
            return Artifact.from_manifest(d, ptx, cubin)
        except ArgumentError as e:
            raise type(e)(f"{base}.json: {e}") from None

    @staticmethod
    def from_manifest(manifest: dict, ptx: str, cubin: bytes) -> "Artifact":
        """The Artifact of a manifest (as manifest() makes it, e.g. read back from JSON) and its
        code; ArgumentError names a missing or malformed field."""
        if not isinstance(manifest, dict):
            raise ArgumentTypeError(f"an artifact manifest is a JSON object, got "
                                    f"{type(manifest).__name__}")
        if not isinstance(ptx, str) or not isinstance(cubin, (bytes, bytearray)):
            raise ArgumentTypeError("an artifact's ptx is str and its cubin bytes")
        d = manifest

        art = Artifact(
            kernel_name=_get(d, "kernel_name", str), arch=_get(d, "arch", str), ptx=ptx,
            cubin=bytes(cubin), params=tuple(Param.from_json(p) for p in _get(d, "params", list)),
            block=_dim3(d, "block"), grid=_dim3(d, "grid"), cluster=_dim3(d, "cluster"),
            dynamic_smem=_get(d, "dynamic_smem", int), key=_get(d, "key", str, ""),
            meta=_get(d, "meta", dict, {}),
            tensor_maps=tuple(TensorMapParam.from_json(t) for t in _get(d, "tensor_maps", list, [])),
        )
        check_tensor_maps(art.params, art.tensor_maps, ptx)  # (manifest.py: records against params, PTX)
        check_digests(d.get("digests"), art)  # (then the whole against what it was saved with)
        return art


class Asm:
    """Artifact.asm: a read-only mapping of IR name -> text (see Artifact.asm)."""

    def __init__(self, art: Artifact):
        self._art = art

    def keys(self) -> list[str]:
        art = self._art
        names = [n for n in art.kept if n not in ("ptx", "sass")]
        return names + ["ptx"] * bool(art.ptx or "ptx" in art.kept) + ["sass"] * bool(art.cubin)

    def __iter__(self):
        return iter(self.keys())

    def __contains__(self, name) -> bool:
        return name in self.keys()

    def __len__(self) -> int:
        return len(self.keys())

    def __repr__(self) -> str:
        return f"<asm of {self._art.kernel_name}: {', '.join(self)}>"

    def __getitem__(self, name: str) -> str:
        art = self._art
        if name == "ptx" and art.ptx:
            return art.ptx
        if name == "sass" and art.cubin:
            if "sass" not in art.kept:  # disassembled once, on first use
                from ..runtime.disasm import disassemble  # (late: import tile_mlir.artifact loads no tile_mlir.runtime)

                art.kept["sass"] = disassemble(art.cubin)
            return art.kept["sass"]
        if name in art.kept:
            return art.kept[name]
        why = {"ptx": "compiled without emit=('ptx',)", "sass": "compiled without a cubin"}.get(
            name, f"not kept: compile(..., keep=({name!r},)) keeps it")
        raise KeyError(f"{art.kernel_name}: no IR {name!r} ({why})")


def _is_count(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


_REQUIRED = object()


def _get(d: dict, key: str, tp: type, default=_REQUIRED, what: str = "manifest"):
    """d[key], checked to be a ``tp`` (ints are not bools)."""
    if key not in d:
        if default is _REQUIRED:
            raise ArgumentError(f"{what} has no field {key!r}")
        return default
    v = d[key]
    if tp is list:
        tp = (list, tuple)  # as JSON reads it, or as manifest() makes it
    if not isinstance(v, tp) or (tp is int and isinstance(v, bool)):
        want = "a list" if isinstance(tp, tuple) else tp.__name__
        raise ArgumentError(f"{what} field {key!r} must be {want}, got {v!r}")
    return v


def _dim3(d: dict, key: str) -> tuple[int, int, int]:
    v = _get(d, key, list)
    if len(v) != 3 or not all(_is_count(x) and x >= 1 for x in v):
        raise ArgumentError(f"manifest field {key!r} must be 3 ints >= 1, got {v!r}")
    return tuple(v)


def _fspath(path, what: str) -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise ArgumentTypeError(f"{what} must be a str or os.PathLike, got {type(path).__name__}")
    path = os.fspath(path)
    if not isinstance(path, str):
        raise ArgumentTypeError(f"{what} must name a path as str, got {type(path).__name__}")
    return path
