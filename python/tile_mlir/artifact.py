"""The compiled form of one tile kernel: what compile() returns and the runner consumes.

An Artifact imports no MLIR: it can be saved next to its cubin and loaded on a machine that has only
numpy and cuda-bindings (the H200 used for Hopper runs has no nvidia-cutlass-dsl).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from dataclasses import dataclass, field

__all__ = ["Param", "Artifact"]


@dataclass(frozen=True)
class Param:
    """One kernel parameter, in PTX .param order.

    kind "buffer": a global-memory buffer, passed as a 64-bit device pointer; dtype/shape describe the
    array the caller must pass. kind "scalar": passed by value; dtype is its numpy dtype name.
    """

    name: str
    kind: str  # "buffer" | "scalar"
    dtype: str  # numpy dtype name, e.g. "uint8", "int32", "float32"
    shape: tuple[int, ...] = ()

    def to_json(self) -> dict:
        return {"name": self.name, "kind": self.kind, "dtype": self.dtype, "shape": list(self.shape)}

    @staticmethod
    def from_json(d: dict) -> "Param":
        return Param(d["name"], d["kind"], d["dtype"], tuple(d.get("shape", ())))


@dataclass(frozen=True)
class Artifact:
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

    @property
    def sm(self) -> int:
        """The SM number the cubin targets (100 for sm_100a)."""
        return int("".join(ch for ch in self.arch.split("_", 1)[1] if ch.isdigit()))

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.cubin).hexdigest()[:16]

    def manifest(self) -> dict:
        d = dataclasses.asdict(self)
        d.pop("ptx"), d.pop("cubin")
        d["params"] = [p.to_json() for p in self.params]
        return d

    def save(self, directory: str) -> str:
        """Write <kernel>.json, <kernel>.ptx and <kernel>.cubin into directory; return the manifest path."""
        os.makedirs(directory, exist_ok=True)
        base = os.path.join(directory, self.kernel_name)
        with open(base + ".ptx", "w") as f:
            f.write(self.ptx)
        with open(base + ".cubin", "wb") as f:
            f.write(self.cubin)
        with open(base + ".json", "w") as f:
            json.dump(self.manifest(), f, indent=1)
        return base + ".json"

    @staticmethod
    def load(manifest_path: str) -> "Artifact":
        base = manifest_path[: -len(".json")] if manifest_path.endswith(".json") else manifest_path
        with open(base + ".json") as f:
            d = json.load(f)
        with open(base + ".ptx") as f:
            ptx = f.read()
        with open(base + ".cubin", "rb") as f:
            cubin = f.read()
        return Artifact.from_manifest(d, ptx, cubin)

    @staticmethod
    def from_manifest(manifest: dict, ptx: str, cubin: bytes) -> "Artifact":
        """The Artifact of a manifest (as manifest() makes it, e.g. read back from JSON) and its code."""
        d = manifest
        return Artifact(
            kernel_name=d["kernel_name"], arch=d["arch"], ptx=ptx, cubin=cubin,
            params=tuple(Param.from_json(p) for p in d["params"]),
            block=tuple(d["block"]), grid=tuple(d["grid"]), cluster=tuple(d["cluster"]),
            dynamic_smem=d["dynamic_smem"], key=d.get("key", ""), meta=d.get("meta", {}),
        )
