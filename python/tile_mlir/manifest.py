"""What a manifest's tensor-map records must agree with before an Artifact is built from them: the
kernel's parameters and its PTX. A record drives cuTensorMapEncodeTiled at launch, so a record that
disagrees (another buffer, dims or strides of another shape, an element size that is not the
buffer's, more or fewer maps than the PTX takes) made TMA read or write the wrong bytes.

The records compile() writes are those of lowering/copy_async/tma_plan.tensor_map_params: dims are the
buffer's shape innermost first, strides contiguous, the element size the buffer's. Not checked here
(the PTX does not say it): a swizzle, box or order of maps that differs from what the code was
compiled for; the README's trust model says what that leaves to the user.
"""
from __future__ import annotations

import math
import re

from .errors import ArgumentError

__all__ = ["check_tensor_maps"]

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
