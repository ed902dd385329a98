"""What a manifest must agree with before an Artifact is built from it: its tensor-map records with the
kernel's parameters and its PTX (check_tensor_maps), and the whole with the digests it was saved with
(check_digests). A record drives cuTensorMapEncodeTiled at launch, so a record that
disagrees (another buffer, dims or strides of another shape, an element size that is not the
buffer's, more or fewer maps than the PTX takes) made TMA read or write the wrong bytes.

The records compile() writes are those of lowering/copy_async/tma_plan.tensor_map_params: dims are the
buffer's shape innermost first, strides contiguous, the element size the buffer's. Not checked here
(the PTX does not say it): a swizzle, box or order of maps that differs from what the code was
compiled for; docs/trust.md says what that leaves to the user.

The digests (``digests`` in a manifest, written by Artifact.manifest()) bind a manifest to its code:
sha256 of the PTX, of the cubin, of the parameters with the outputs, of the tensor-map records, and of
the kernel name, arch and launch shape, each checked at load, so a swizzle, box or map order edited
after saving, or a .ptx / .cubin from another build, is refused with the part that differs. They catch
edits and mix-ups, not forgery: whoever can write the manifest can write its digests (the trust model).
A manifest without them is refused: saved before they existed, or stripped (re-save it with
Artifact.save).
"""
from __future__ import annotations

import hashlib
import json
import math
import re

from ..errors import ArgumentError

__all__ = ["check_tensor_maps", "digests", "check_digests", "DIGEST_PARTS"]

#: what each digest covers, in the words a mismatch names it by
DIGEST_PARTS = {"ptx": "the PTX", "cubin": "the cubin", "params": "the parameters and outputs",
                "tensor_maps": "the tensor-map records", "launch": "the kernel name, arch and launch shape"}

_TENSOR_MAP_PARAM = re.compile(r"\.param\s+\.align\s+64\s+\.b8\s+[\w$]+\s*\[\s*128\s*\]")
_ELEM_BITS = re.compile(r"[a-z]+?(\d+)")


def check_tensor_maps(params, tensor_maps, ptx: str) -> None:
    """Raise ArgumentError for the first tensor-map record that disagrees with `params` or `ptx`."""
    by_name = {p.name: p for p in params}
    for i, tm in enumerate(tensor_maps):
        what = f"tensor map #{i} (of '{tm.buffer}')"
        p = by_name.get(tm.buffer)
        if p is None or p.kind != "buffer":
            raise ArgumentError(f"{what}: '{tm.buffer}' is not a buffer parameter of the kernel")
        if p.bits:
            continue  # (sub-byte buffers: TMA sees their bytes; the compiler never records such maps)
        m = _ELEM_BITS.match(p.dtype)
        elem = int(m.group(1)) // 8 if m else None
        if elem is not None and elem != tm.elem_bytes:
            raise ArgumentError(f"{what}: {tm.data_type} elements are {tm.elem_bytes} bytes, the buffer's "
                                f"{p.dtype} {elem}")
        dims = tuple(reversed(p.shape))
        if tuple(tm.global_dim) != dims:
            raise ArgumentError(f"{what}: global_dim {tuple(tm.global_dim)} is not the buffer's shape "
                                f"{p.shape} innermost first {dims}")
        strides = tuple(tm.elem_bytes * math.prod(dims[:k + 1]) for k in range(len(dims) - 1))
        if tuple(tm.global_strides) != strides:
            raise ArgumentError(f"{what}: global_strides {tuple(tm.global_strides)} are not those of the "
                                f"contiguous buffer {strides}")
    if ".entry" in ptx:
        taken = len(_TENSOR_MAP_PARAM.findall(ptx))
        if taken != len(tensor_maps):
            raise ArgumentError(f"the manifest records {len(tensor_maps)} tensor maps, its PTX takes {taken}")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def _json(v) -> bytes:
    return json.dumps(v, sort_keys=True, separators=(",", ":")).encode()


def digests(art) -> dict:
    """The digests of an Artifact, by DIGEST_PARTS key."""
    return {
        "ptx": _sha(art.ptx.encode()),
        "cubin": _sha(bytes(art.cubin)),
        "params": _sha(_json([[p.to_json() for p in art.params], art.meta.get("outputs")])),
        "tensor_maps": _sha(_json([tm.to_json() for tm in art.tensor_maps])),
        "launch": _sha(_json([art.kernel_name, art.arch, list(art.block), list(art.grid), list(art.cluster),
                              art.dynamic_smem])),
    }


def check_digests(recorded, art) -> None:
    """Raise ArgumentError naming the first part of `art` that its manifest's `recorded` digests disagree
    with, or saying there are none (None)."""
    if recorded is None:
        raise ArgumentError("manifest has no field 'digests' binding it to its code (saved before they "
                            "existed, or stripped): re-save the artifact with Artifact.save")
    if not isinstance(recorded, dict) or set(recorded) != set(DIGEST_PARTS):
        raise ArgumentError(f"manifest field 'digests' must map {sorted(DIGEST_PARTS)} to digests, got "
                            f"{recorded!r:.200}")
    for part, want in digests(art).items():
        if recorded[part] != want:
            raise ArgumentError(f"digest mismatch: {DIGEST_PARTS[part]} ({part}) hash to {want}, the manifest "
                                f"records {recorded[part]!r:.80}: edited after saving, or from another build")
