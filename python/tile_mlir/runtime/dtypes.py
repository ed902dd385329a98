"""Element dtypes as the runtime sees them: numpy names, ml_dtypes, DLPack type codes, packed bits.

A parameter's dtype is a numpy dtype name (artifact.Param). The narrow floats have numpy names only
through ml_dtypes, which defines them as numpy dtypes: bf16 is "bfloat16", f8E4M3FN "float8_e4m3fn",
f8E5M2 "float8_e5m2", f8E8M0FNU "float8_e8m0fnu", f6E2M3FN / f6E3M2FN "float6_e2m3fn" /
"float6_e3m2fn", f4E2M1FN "float4_e2m1fn" (one element per byte, in its low bits). Checking an
argument compares names and needs no ml_dtypes; only making arrays of these dtypes imports it
(:func:`numpy_dtype`), so kernels of other element types run where ml_dtypes is absent. Arrays of
the unsigned integers of the same width (``BIT_PATTERNS``) are taken as the elements' bit patterns.

Elements under 8 bits travel packed in memory (Param.bits, Param.packed_shape): the bits of
consecutive elements in row-major order, low bits first. :func:`pack` and :func:`unpack` convert
between one element per byte (low bits) and that packed form.
"""
from __future__ import annotations

import numpy as np

__all__ = ["BIT_PATTERNS", "numpy_dtype", "dlpack_dtype", "pack", "unpack"]

#: dtype names numpy knows through ml_dtypes -> the unsigned integer dtype holding their bits.
BIT_PATTERNS = {
    "bfloat16": "uint16", "float8_e4m3fn": "uint8", "float8_e5m2": "uint8",
    "float8_e8m0fnu": "uint8", "float6_e2m3fn": "uint8", "float6_e3m2fn": "uint8",
    "float4_e2m1fn": "uint8",
}

# DLPack type codes (dlpack.h, DLDataTypeCode) of the dtypes above; torch exports e.g.
# torch.bfloat16 as kDLBfloat and torch.float8_e4m3fn as kDLFloat8_e4m3fn.
_DL_NAMES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 6: "bool", 10: "float8_e4m3fn",
             12: "float8_e5m2", 14: "float8_e8m0fnu", 15: "float6_e2m3fn", 16: "float6_e3m2fn",
             17: "float4_e2m1fn"}


def numpy_dtype(name: str) -> np.dtype:
    """The numpy dtype of a dtype name, importing ml_dtypes for the names only it defines."""
    if name in BIT_PATTERNS:
        try:
            import ml_dtypes
        except ImportError as e:
            raise ImportError(f"{name} arrays need ml_dtypes (pip install ml_dtypes); without it, "
                              f"pass the bit patterns as {BIT_PATTERNS[name]}") from e
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def dlpack_dtype(code: int, bits: int, lanes: int) -> str:
    """The dtype name of a DLPack (code, bits, lanes), e.g. (4, 16, 1) -> "bfloat16"."""
    kind = _DL_NAMES.get(code)
    if kind is None:
        name = f"dlpack-code{code}-{bits}bit"
    elif kind == "bool" or code > 6:
        name = kind
    else:
        name = f"{kind}{bits}"
    return name if lanes == 1 else f"{name}x{lanes}"


def pack(elements: np.ndarray, bits: int) -> np.ndarray:
    """The packed bytes (flat uint8) of elements held one per byte in its low ``bits`` bits."""
    e = np.ascontiguousarray(elements).view(np.uint8).reshape(-1, 1)
    stream = np.unpackbits(e, axis=1, count=bits, bitorder="little")
    return np.packbits(stream.reshape(-1), bitorder="little")


def unpack(packed: np.ndarray, bits: int, count: int) -> np.ndarray:
    """``count`` elements (flat uint8, one per byte, low bits) from their packed bytes."""
    stream = np.unpackbits(np.ascontiguousarray(packed).view(np.uint8).reshape(-1),
                           count=count * bits, bitorder="little")
    return np.packbits(stream.reshape(count, bits), axis=1, bitorder="little").reshape(-1)
