"""One TMA campaign case: its record (what cuTensorMapEncodeTiled gets, the box coordinates, the
launch), the bytes it starts from and the bytes it is judged by.  Pure numpy: the GPU-side runner
(run_gpu.py) imports it, as does the generator (campaign.py) and the replay test.

Input bytes are not shipped: ``data(seed, n)`` makes them from the case's seed (splitmix64 in
numpy's wrapping uint64 arithmetic, the same bytes on every machine).
"""
from __future__ import annotations

import hashlib

import numpy as np

#: CUtensorMapDataType enum values and element sizes of the types the campaign uses
DTYPES = {"uint8": (0, 1), "uint16": (1, 2), "uint32": (2, 4), "int32": (3, 4), "uint64": (4, 8),
          "int64": (5, 8), "float16": (6, 2), "float32": (7, 4), "float64": (8, 8),
          "bfloat16": (9, 2), "float32_ftz": (10, 4), "tfloat32": (11, 4),
          "tfloat32_ftz": (12, 4)}
SWIZZLES = {"none": 0, "32b": 1, "64b": 2, "128b": 3}
OOB_FILLS = {"none": 0, "nan_request_zero_fma": 1}
STATUS = 16  # status bytes per CTA before a load's dump (tma_kernels.py)


def data(seed: int, n: int) -> np.ndarray:
    """``n`` deterministic bytes for ``seed`` (splitmix64 of the byte index)."""
    x = np.arange(n, dtype=np.uint64) + np.uint64((seed * 0x9E3779B97F4A7C15) % (1 << 64))
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return (x & np.uint64(0xFF)).astype(np.uint8)


def _tf32_probe(tensor: np.ndarray, goffset: int):
    """Values that tell how a tfloat32 load rounds (docs/emulator.md A28): in every 16 words,
    ties (low 13 bits 0x1000) with both parities of the kept bit, negative NaNs, denormals and
    values that round past the largest finite one."""
    w = tensor[goffset:goffset + (len(tensor) - goffset) // 64 * 64].view("<u4")
    w[0::16] = (w[0::16] & 0xFFFFE000) | 0x1000
    w[1::16] = (w[1::16] & 0xFFFFC000) | 0x3000
    w[2::16] = 0xFF800000 | (w[2::16] & 0x7FFFFF) | 1
    w[3::16] = w[3::16] & 0x807FFFFF
    w[4::16] = (w[4::16] & 0x80000000) | 0x7F7FF000 | (w[4::16] & 0xFFF)


def ctas(case: dict) -> int:
    return case["grid"][0]


def kernel_name(case: dict) -> str:
    return f"tma_{case['kind']}_{len(case['dims'])}d"


def inputs(case: dict) -> dict:
    """The arrays a run starts from: ``tensor`` (the global allocation, the map's globalAddress
    is ``goffset`` bytes into it), ``pat`` (what each CTA's shared region is filled with) and
    ``out`` (status words and dumps)."""
    n = case["nbytes"]
    per_cta = STATUS + (n if case["kind"] != "store" else 0)
    tensor = data(case["seed"], case["gsize"])
    if case["dtype"].startswith("tfloat32"):
        _tf32_probe(tensor, case["goffset"])
    return {"tensor": tensor,
            "pat": data(case["seed"] + 1, n * ctas(case)),
            "out": np.zeros(per_cta * ctas(case), np.uint8)}


def scalar_args(case: dict) -> list:
    """The kernel's parameters after tmap, out and pat, in order (tma_kernels.py)."""
    args = [case["off"], case["nbytes"]]
    if case["kind"] != "store":
        args += [case["tx"], case["txmode"]]
    if case["kind"] == "mcast":
        args += [case["mask"], case["issuer"]]
    return args + list(case["coords"])


def judged(case: dict, tensor: np.ndarray, out: np.ndarray) -> bytes:
    """The bytes a run is judged by: every CTA's status and dump, with the two words that hold
    shared addresses (which differ between machines: A11) zeroed; a store's tensor too."""
    o = out.copy()
    per_cta = len(o) // ctas(case)
    for c in range(ctas(case)):
        o[c * per_cta + 4:c * per_cta + 12] = 0
    return o.tobytes() + (tensor.tobytes() if case["kind"] == "store" else b"")


def digest(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def smem_addresses(case: dict, out: np.ndarray) -> list:
    """Per CTA, the shared address of the kernel's `buf` as the run reported it."""
    per_cta = len(out) // ctas(case)
    return [int(out[c * per_cta + 4:c * per_cta + 8].view(np.uint32)[0]) for c in range(ctas(case))]
