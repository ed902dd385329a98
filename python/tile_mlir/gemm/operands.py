"""The arrays tile_mlir.gemm takes and gives (docs/gemm-library.md §1): numpy (host), torch tensors, and any
other DLPack array through torch; what TMA cannot read as it is gets a copy it can.

TMA reads rows whose byte strides are 16-byte multiples from 16-byte aligned addresses. So A and B (M x K and
N x K, K-major) are padded with zero columns to a K of a multiple of 16 bytes when theirs is not (zeros add
nothing to the products), D is computed N-padded to a multiple of 8 (16 bytes of bf16) and its first N columns
copied out, and a non-contiguous or misaligned array is copied contiguous first.
"""
from __future__ import annotations

import numpy as np

__all__ = ["Operands", "prepare"]

_DTYPES = {"bfloat16": "bf16", "float16": "f16", "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2",
           "float32": "tf32"}  # (float32 operands: tf32 MMAs, sm_100a)
_BYTES = {"bf16": 2, "f16": 2, "e4m3": 1, "e5m2": 1, "tf32": 4}


class Operands:
    """A, B, D as the kernel takes them, and how to give D back."""

    def __init__(self, lib, a, b, d, out, m, n, k, dtype):
        self.lib, self.a, self.b, self.d, self.out = lib, a, b, d, out
        self.m, self.n, self.k, self.dtype = m, n, k, dtype

    def kernel_args(self):
        """A, B, D as the kernel's buffers (torch fp8 as its bytes: DLPack has no fp8)."""
        if self.lib == "torch":
            import torch
            if self.dtype == "tf32":
                return self.a, self.b, self.d.view(torch.uint16)
            bits = torch.uint16 if _BYTES[self.dtype] == 2 else torch.uint8
            return self.a.view(bits), self.b.view(bits), self.d.view(torch.uint16)
        return self.a, self.b, self.d

    def finish(self):
        """The result: `out` (D's first N columns copied into it when D was padded)."""
        if self.d is not self.out:
            self.out[...] = self.d[:, :self.n]
        return self.out


def _lib(x) -> str:
    if isinstance(x, np.ndarray):
        return "numpy"
    mod = type(x).__module__.split(".")[0]
    if mod == "torch":
        return "torch"
    if hasattr(x, "__dlpack__"):
        return "dlpack"
    raise TypeError(f"tile_mlir.gemm takes numpy arrays, torch tensors or DLPack arrays, got {type(x).__name__}")


def _dtype_name(x, lib: str) -> str:
    if lib == "torch":
        return str(x.dtype).replace("torch.", "")
    return np.dtype(x.dtype).name


def prepare(a, b, out=None) -> Operands:
    """Check A (M x K) and B (N x K) and make what the kernel reads of them; `out` (M x N bf16) or a new D."""
    lib = _lib(a)
    if _lib(b) != lib or (out is not None and _lib(out) != lib):
        raise TypeError("tile_mlir.gemm: a, b and out must be arrays of one library (numpy, or torch)")
    if lib == "dlpack":
        import torch
        a, b = torch.from_dlpack(a), torch.from_dlpack(b)
        out = None if out is None else torch.from_dlpack(out)
        lib = "torch"
    if len(a.shape) != 2 or len(b.shape) != 2:
        raise ValueError(f"tile_mlir.gemm: a (M x K) and b (N x K) must be matrices, got shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    (m, k), (n, kb) = a.shape, b.shape
    if k != kb:
        raise ValueError(f"tile_mlir.gemm: a is {m} x {k} and b {n} x {kb}: D = a . b^T needs the same K")
    if min(m, n, k) < 1:
        raise ValueError(f"tile_mlir.gemm: M, N and K must be positive, got {m} x {n} x {k}")
    if max(m, n, k) >= 1 << 31:
        raise ValueError("tile_mlir.gemm: M, N and K are i32 in the kernel (below 2^31)")
    ta, tb = _dtype_name(a, lib), _dtype_name(b, lib)
    if ta != tb or ta not in _DTYPES:
        raise TypeError(f"tile_mlir.gemm: a and b must both be one of {', '.join(_DTYPES)}, got {ta} and {tb}")
    dtype = _DTYPES[ta]
    ebytes = _BYTES[dtype]
    kp = -(-k * ebytes // 16) * 16 // ebytes
    np_ = -(-n // 8) * 8
    a, b = _tma_ready(a, lib, kp), _tma_ready(b, lib, kp)
    if out is None:
        out = _empty(lib, (m, n), a)
    elif tuple(out.shape) != (m, n) or _dtype_name(out, lib) != "bfloat16":
        raise ValueError(f"tile_mlir.gemm: out must be a {m} x {n} bfloat16 array, got "
                         f"{_dtype_name(out, lib)} of shape {tuple(out.shape)}")
    d = out if np_ == n and _aligned(out, lib) else _empty(lib, (m, np_), a)
    return Operands(lib, a, b, d, out, m, n, k, dtype)


def _aligned(x, lib: str) -> bool:
    if lib == "torch":
        return x.is_contiguous() and x.data_ptr() % 16 == 0
    return x.flags.c_contiguous and x.ctypes.data % 16 == 0 and x.flags.writeable


def _empty(lib: str, shape, like):
    if lib == "torch":
        import torch
        return torch.empty(shape, dtype=torch.bfloat16, device=like.device)
    import ml_dtypes
    return np.empty(shape, ml_dtypes.bfloat16)


def _tma_ready(x, lib: str, kp: int):
    """x (rows x K) as TMA reads it: contiguous, 16-byte aligned, K padded with zeros to kp."""
    k = x.shape[1]
    if k == kp and _aligned_in(x, lib):
        return x
    if lib == "torch":  # (through the bit patterns: not every torch has fp8 fills and copies)
        import torch
        bits = {1: torch.uint8, 2: torch.uint16, 4: torch.int32}[x.element_size()]
        y = torch.zeros((x.shape[0], kp), dtype=bits, device=x.device)
        y[:, :k] = x.contiguous().view(bits)
        return y.view(x.dtype)
    else:
        y = np.zeros((x.shape[0], kp), x.dtype)
    y[:, :k] = x
    return y


def _aligned_in(x, lib: str) -> bool:
    if lib == "torch":
        return x.is_contiguous() and x.data_ptr() % 16 == 0
    return x.flags.c_contiguous and x.ctypes.data % 16 == 0
