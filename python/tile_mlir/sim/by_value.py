"""A by-value ``.param`` struct that holds global addresses: a tensor with a run-time layout, as
the CuTe DSL passes it (its address and its shape in one struct), or any host struct with
pointer fields.  run_ptx binds it to a ``.param .align A .b8 name[N]`` parameter of N bytes: the
struct's bytes, each pointer field the address of its array's allocation (the same allocation as
every other argument that is the same array) plus the byte offset the field holds, the arrays
updated after the run as pointer arguments are (docs/emulator.md §12.5)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["ByValue", "DeviceTable"]


@dataclass
class ByValue:
    """``data``: the struct's bytes, little-endian as the host lays them out; ``pointers``: byte
    offset of a 64-bit pointer field -> the array it points into; the field's bytes in ``data``
    are the byte offset into that array (0: its start; a workspace's sub-tensor at ``base + n``
    holds n)."""
    data: bytes
    pointers: dict[int, np.ndarray] = field(default_factory=dict)


@dataclass
class DeviceTable:
    """Global-memory bytes that hold global addresses: a device array of pointers, as a grouped
    GEMM's host passes the per-group A, B and C addresses.  It stands wherever an array does (a
    pointer argument, a :class:`ByValue` or another table's pointer field): run_ptx allocates
    ``data``, each 64-bit field at a byte offset of ``pointers`` overwritten with the address of
    its array (the same allocation as every other argument that is the same array, copied back
    after the run); the table itself is not copied back."""
    data: bytes
    pointers: dict = field(default_factory=dict)

    @property
    def nbytes(self) -> int:
        return len(self.data)
