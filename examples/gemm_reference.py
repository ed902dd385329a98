"""Operands and numpy references of the GEMMs of examples/gemm_blockscaled.py (docs/gemm-walkthrough.md §1).

Pure numpy + ml_dtypes, no MLIR, so the GPU machine (bench/gemm.py, bench/gpu) imports it too (the fast
check imports tile_mlir.sim, which needs no MLIR either, and tqdm).

Conventions, the kernels' and cuBLAS's "TN" GEMM: D[m, n] = sum_k A[m, k] * B[n, k], A is M x K and B is
N x K, both K-major (row-major with k innermost); D is M x N row-major bf16.

Block-scaled formats (PTX ISA #tcgen05-block-scaling; OCP MX spec):
  mxfp8  e4m3 elements, one UE8M0 scale (2^(code - 127)) per 32 consecutive k of a row of A / B
  nvfp4  e2m1 elements, one UE4M3 scale (unsigned e4m3) per 16 consecutive k
D = sum_k (A[m, k] * SFA[m, k // V]) * (B[n, k] * SFB[n, k // V]).

`exact_blockscaled` computes that sum exactly (integers: every element and scale is an integer times a
power of two) and rounds it once to float64; `mmasim_blockscaled` is MMA-Sim's Blackwell model of the
kernel's instruction sequence (one tcgen05.mma per K step, D kept in fp32 between them), the bit-exact
expectation of tile-sim's output. MMA-Sim takes minutes at 1024^3, so the examples' --run check compares D
with `fast_blockscaled` / `fast_wgmma` (tile-sim's integer formulation of the same arithmetic, seconds)
and checks that model against MMA-Sim on sampled tiles (`check_blockscaled`, `check_wgmma`).
"""
from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class BlockFormat:
    name: str
    elem: np.dtype  # ml_dtypes element type (one element per byte as numpy holds it)
    elem_ptx: str  # the element's PTX / MMA-Sim name
    scale_ptx: str  # "ue8m0" | "ue4m3"
    vec: int  # elements per scale factor
    kind: str  # tcgen05.mma .kind
    mma_k: int  # K of one tcgen05.mma of this kind (256 bits of A per row)
    elem_bits: int  # bits per element in memory (4: two e2m1 per byte, low nibble first)
    elem_mlir: str  # the element's and the scale's MLIR type names (the tile IR's buffers)
    scale_mlir: str


MXFP8 = BlockFormat("mxfp8", np.dtype(ml_dtypes.float8_e4m3fn), "e4m3", "ue8m0", 32, "mxf8f6f4", 32, 8,
                    "f8E4M3FN", "f8E8M0FNU")
NVFP4 = BlockFormat("nvfp4", np.dtype(ml_dtypes.float4_e2m1fn), "e2m1", "ue4m3", 16, "mxf4nvf4", 64, 4,
                    "f4E2M1FN", "f8E4M3FN")
FORMATS = {f.name: f for f in (MXFP8, NVFP4)}


@dataclass(frozen=True)
class DenseFormat:
    """An unscaled tcgen05.mma operand type (PTX ISA "tcgen05.mma" kinds f16, f8f6f4, tf32), A and B alike."""
    name: str
    elem: np.dtype  # numpy / ml_dtypes type of an element in memory (tf32: float32, whose low 13 bits the MMA drops)
    elem_ptx: str  # the element's PTX / MMA-Sim name
    kind: str  # tcgen05.mma .kind
    mma_k: int  # K of one tcgen05.mma (256 bits of A per row)
    elem_bits: int  # bits per element in memory


DENSE_FORMATS = {f.name: f for f in (
    DenseFormat("bf16", np.dtype(ml_dtypes.bfloat16), "bf16", "f16", 16, 16),
    DenseFormat("f16", np.dtype(np.float16), "f16", "f16", 16, 16),
    DenseFormat("e4m3", np.dtype(ml_dtypes.float8_e4m3fn), "e4m3", "f8f6f4", 32, 8),
    DenseFormat("e5m2", np.dtype(ml_dtypes.float8_e5m2), "e5m2", "f8f6f4", 32, 8),
    DenseFormat("tf32", np.dtype(np.float32), "tf32", "tf32", 8, 32))}


# ---------------------------------------------------------------- exact values as integer * 2^exponent
def _int_exp(values: np.ndarray, frac_bits: int) -> np.ndarray:
    """Finite floats whose every value is an integer multiple of 2^-frac_bits -> those integers (int64)."""
    scaled = np.ldexp(values.astype(np.float64), frac_bits)
    ints = scaled.astype(np.int64)
    assert np.array_equal(ints, scaled), "value not a multiple of the format's smallest step"
    return ints


# e4m3: smallest subnormal 2^-9, largest 448 (< 2^9 * 2^9); e2m1: smallest 0.5, largest 6.
_ELEM_FRAC_BITS = {"e4m3": 9, "e2m1": 1, "bf16": 133}


def scale_values(codes: np.ndarray, fmt: BlockFormat) -> np.ndarray:
    """Scale-factor bytes -> their values (float64). UE8M0 0xFF (NaN) is not generated here."""
    codes = np.asarray(codes, np.uint8)
    if fmt.scale_ptx == "ue8m0":
        return np.ldexp(1.0, codes.astype(np.int64) - 127)
    return codes.view(ml_dtypes.float8_e4m3fn).astype(np.float64)  # UE4M3: sign bit is 0


def _scale_int_exp(codes: np.ndarray, fmt: BlockFormat):
    """Scale bytes -> (integer, exponent) with value = integer * 2^exponent, exponent per element."""
    codes = np.asarray(codes, np.uint8)
    if fmt.scale_ptx == "ue8m0":
        return np.ones(codes.shape, np.int64), codes.astype(np.int64) - 127
    return _int_exp(scale_values(codes, fmt), 9), np.full(codes.shape, -9, np.int64)


def exact_blockscaled(a, sfa, b, sfb, fmt: BlockFormat) -> np.ndarray:
    """The exact block-scaled product, rounded once to float64 (M x N).

    Per scale block the partial sum is an int64 (|elem int| < 2^18, V <= 32 products, UE4M3 integer
    < 2^18); blocks differ in exponent (UE8M0), so they are added as Python integers."""
    fb = _ELEM_FRAC_BITS[fmt.elem_ptx]
    ai, bi = _int_exp(a.astype(np.float64), fb), _int_exp(b.astype(np.float64), fb)
    m, k = ai.shape
    n = bi.shape[0]
    nb = k // fmt.vec
    # partial[m, n, blk] = sum over the block's k of ai * bi  (exact: < 2^36 * 32)
    part = np.einsum("mbv,nbv->mnb", ai.reshape(m, nb, fmt.vec), bi.reshape(n, nb, fmt.vec))
    sai, sae = _scale_int_exp(sfa, fmt)
    sbi, sbe = _scale_int_exp(sfb, fmt)
    mant = part.astype(object) * sai[:, None, :].astype(object) * sbi[None, :, :].astype(object)
    exp = sae[:, None, :] + sbe[None, :, :] - 2 * fb
    e0 = int(exp.min())
    total = (mant << (exp - e0).astype(object)).sum(axis=-1)  # Python ints: exact
    # int / int is correctly rounded in Python, so each sum is rounded once.
    scale = 1 << -e0 if e0 < 0 else None
    return np.vectorize(lambda v: v / scale if scale else float(v << e0), otypes=[np.float64])(total)


def dequantize(x, sf, fmt: BlockFormat) -> np.ndarray:
    """Elements times their block's scale, float64 (exact: at most 4 + 4 significant bits each)."""
    return x.astype(np.float64) * np.repeat(scale_values(sf, fmt), fmt.vec, axis=1)


# ---------------------------------------------------------------- random operands
def random_blockscaled(fmt: BlockFormat, m: int, n: int, k: int, seed: int = 0):
    """A (m x k), SFA (m x k/V codes), B (n x k), SFB (n x k/V codes): every element code of the format
    but NaN; scales spread over 2^-4 .. 2^4 (UE8M0) or 1/8 .. 8 (UE4M3) so products stay normal fp32."""
    assert k % fmt.vec == 0, f"K={k} must be a multiple of the scale block {fmt.vec}"
    rng = np.random.default_rng(seed)

    def elems(shape):
        if fmt.elem_ptx == "e2m1":
            return rng.integers(0, 16, shape, dtype=np.uint8).view(fmt.elem)  # (e2m1fn has no NaN)
        codes = rng.integers(0, 256, shape, dtype=np.uint8)
        codes[(codes & 0x7F) == 0x7F] = 0x38  # e4m3fn NaN -> 1.0
        return codes.view(fmt.elem)

    def scales(shape):
        if fmt.scale_ptx == "ue8m0":
            return rng.integers(127 - 4, 127 + 5, shape, dtype=np.uint8)
        vals = rng.uniform(0.125, 8.0, shape).astype(ml_dtypes.float8_e4m3fn)
        return vals.view(np.uint8)

    return elems((m, k)), scales((m, k // fmt.vec)), elems((n, k)), scales((n, k // fmt.vec))


def random_dense(dtype, m: int, n: int, k: int, seed: int = 0):
    """A (m x k), B (n x k) of bf16 or e4m3 (ml_dtypes), values ~ U(-1, 1) rounded to the type."""
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, (m, k)).astype(dtype), rng.uniform(-1, 1, (n, k)).astype(dtype))


def random_dense_format(fmt: DenseFormat, m: int, n: int, k: int, seed: int = 0):
    """A (m x k), B (n x k) of a dense format, spread over the format's range so that alignment shifts and
    truncation in the MMA are exercised: 8-bit formats every finite code (NaN and e5m2's infinities -> 1.0);
    16-bit U(-1, 1) * 2^[-6, 6] rounded to the type; tf32 the same in full float32 (the low 13 mantissa bits
    set, which the MMA drops). Products and sums stay finite in fp32."""
    rng = np.random.default_rng(seed)

    def elems(shape):
        if fmt.elem_bits == 8:
            codes = rng.integers(0, 256, shape, dtype=np.uint8)
            special = (codes & 0x7F) == 0x7F if fmt.elem_ptx == "e4m3" else (codes & 0x7C) == 0x7C
            codes[special] = 0x38 if fmt.elem_ptx == "e4m3" else 0x3C  # 1.0
            return codes.view(fmt.elem)
        x = rng.uniform(-1, 1, shape) * np.exp2(rng.integers(-6, 7, shape))
        return x.astype(fmt.elem)

    return elems((m, k)), elems((n, k))


# ---------------------------------------------------------------- memory images the kernels read
def pack_e2m1(x: np.ndarray) -> np.ndarray:
    """e2m1 elements (one per byte) -> two per byte along the last axis, element 2i in the low nibble
    (PTX ISA "Packing formats ...": mxf4 operands are packed, no padding)."""
    codes = x.view(np.uint8) & 0xF
    return (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)


def operand_bytes(x: np.ndarray, fmt: BlockFormat) -> np.ndarray:
    """A or B as the bytes in global memory (rows of k, K-major)."""
    return pack_e2m1(x) if fmt.elem_bits == 4 else x.view(np.uint8)


def sf_atoms(sf: np.ndarray) -> np.ndarray:
    """Scale-factor codes (MN x KB) -> the 128x4 atom image cuBLAS and CUTLASS use (docs/gemm-walkthrough.md
    §1): atoms of 128 MN rows x 4 scale blocks, 512 bytes each, the
    byte of (r, kb) at (r % 32) * 16 + (r // 32 % 4) * 4 + kb % 4; atoms K-first. MN is padded to 128
    and KB to 4 with zero bytes. Returns a (MN/128, KB/4, 512) uint8 array."""
    mn, kb = sf.shape
    mnp, kbp = -(-mn // 128) * 128, -(-kb // 4) * 4
    full = np.zeros((mnp, kbp), np.uint8)
    full[:mn, :kb] = sf
    t = full.reshape(mnp // 128, 4, 32, kbp // 4, 4)  # (mt, r//32, r%32, kt, kb%4)
    return np.ascontiguousarray(t.transpose(0, 3, 2, 1, 4)).reshape(mnp // 128, kbp // 4, 512)


# ---------------------------------------------------------------- MMA-Sim: what the tensor core computes
def mmasim_blockscaled(a, sfa, b, sfb, fmt: BlockFormat) -> np.ndarray:
    """D (fp32, M x N) as the kernel computes it: one tcgen05.mma m128nNk(mma_k) per K step in order,
    D in fp32 tensor memory between steps (first step without input D), each step on MMA-Sim's
    Blackwell model. M and N are padded to 128 / a multiple of 8 with zeros, as TMA fills edge tiles."""
    import torch
    from mmasim.nv_ptx import TCGen05MMABlockScale

    m, k = a.shape
    n = b.shape[0]
    mp, np_ = -(-m // 128) * 128, -(-n // 8) * 8
    nt = min(np_, 256)

    def tensor(x, rows, dtype_name):
        full = np.zeros((rows, x.shape[1]), x.dtype)
        full[: x.shape[0]] = x
        if dtype_name == "e2m1":
            return torch.from_numpy(full.view(np.uint8) & 0xF)
        if dtype_name == "e4m3":
            return torch.from_numpy(full.view(np.uint8)).view(torch.float8_e4m3fn)
        if dtype_name == "ue8m0":
            return torch.from_numpy(full.view(np.uint8)).view(torch.float8_e8m0fnu)
        return torch.from_numpy(full.view(np.uint8)).view(torch.float8_e4m3fn)  # ue4m3

    ta, tb = tensor(a, mp, fmt.elem_ptx), tensor(b, np_, fmt.elem_ptx)
    tsa, tsb = tensor(sfa, mp, fmt.scale_ptx), tensor(sfb, np_, fmt.scale_ptx)
    d = torch.zeros((mp, np_), dtype=torch.float32)
    spv = fmt.mma_k // fmt.vec
    for n0 in range(0, np_, nt):
        nn = min(nt, np_ - n0)
        op = TCGen05MMABlockScale("Blackwell", f"m128n{nn}k{fmt.mma_k}.kind::{fmt.kind}.block{fmt.vec}"
                                  f".f32.{fmt.elem_ptx}.{fmt.elem_ptx}.{fmt.scale_ptx}")
        for m0 in range(0, mp, 128):
            c = torch.zeros((128, nn), dtype=torch.float32)
            for k0 in range(0, k, fmt.mma_k):
                kb = k0 // fmt.vec
                c = op(ta[m0:m0 + 128, k0:k0 + fmt.mma_k], tb[n0:n0 + nn, k0:k0 + fmt.mma_k].T, c,
                       tsa[m0:m0 + 128, kb:kb + spv], tsb[n0:n0 + nn, kb:kb + spv].T)
            d[m0:m0 + 128, n0:n0 + nn] = c
    return d[:m, :n].numpy()


def _dense_torch(x: np.ndarray, rows: int, fmt: DenseFormat):
    """x zero-padded to `rows` rows as the torch tensor MMA-Sim takes for fmt."""
    import torch
    full = np.zeros((rows, x.shape[1]), x.dtype)
    full[: x.shape[0]] = x
    raw = torch.from_numpy(full.view({8: np.uint8, 16: np.int16, 32: np.int32}[fmt.elem_bits]))
    return raw.view({"bf16": torch.bfloat16, "f16": torch.float16, "e4m3": torch.float8_e4m3fn,
                     "e5m2": torch.float8_e5m2, "tf32": torch.float32}[fmt.name])


def mmasim_dense(a, b, fmt: DenseFormat, c=None) -> np.ndarray:
    """D (fp32, M x N) as a dense Blackwell kernel computes it: one tcgen05.mma m128nNk(mma_k) per K step in
    order, D in fp32 tensor memory between steps, each step on MMA-Sim's Blackwell model; the first step adds
    `c` (fp32 M x N) or nothing. M and N are padded with zeros as TMA fills edge tiles; every element of D
    depends on its row and column alone, so N is cut in pieces of at most 256."""
    import torch
    from mmasim.nv_ptx import TCGen05MMA

    m, k = a.shape
    n = b.shape[0]
    mp, np_ = -(-m // 128) * 128, -(-n // 8) * 8
    ta, tb = _dense_torch(a, mp, fmt), _dense_torch(b, np_, fmt)
    d = torch.zeros((mp, np_), dtype=torch.float32)
    if c is not None:
        d[:m, :n] = torch.from_numpy(np.ascontiguousarray(c, np.float32))
    for n0 in range(0, np_, 256):
        nn = min(256, np_ - n0)
        op = TCGen05MMA("Blackwell", f"m128n{nn}k{fmt.mma_k}.kind::{fmt.kind}.f32.{fmt.elem_ptx}.{fmt.elem_ptx}")
        for m0 in range(0, mp, 128):
            acc = d[m0:m0 + 128, n0:n0 + nn].clone()
            for k0 in range(0, k, fmt.mma_k):
                acc = op(ta[m0:m0 + 128, k0:k0 + fmt.mma_k], tb[n0:n0 + nn, k0:k0 + fmt.mma_k].T, acc)
            d[m0:m0 + 128, n0:n0 + nn] = acc
    return d[:m, :n].numpy()


def mmasim_wgmma(a, b) -> np.ndarray:
    """D (fp32, M x N) as the Hopper twin computes it: per 64-row slice one wgmma m64nNk(16|32) per K step
    in order (accumulator in fp32 registers between steps), on MMA-Sim's Hopper model; N in slices of
    at most 256 (a multiple of 8; M and N padded with zeros as TMA fills edge tiles)."""
    import torch
    from mmasim.nv_ptx import WGMMA

    name = {"bfloat16": "bf16", "float8_e4m3fn": "e4m3"}[a.dtype.name]
    kstep = 16 if name == "bf16" else 32
    m, k = a.shape
    n = b.shape[0]
    mp, np_ = -(-m // 64) * 64, -(-n // 8) * 8

    def tensor(x, rows):
        full = np.zeros((rows, k), x.dtype)
        full[: x.shape[0]] = x
        raw = torch.from_numpy(full.view(np.uint16 if name == "bf16" else np.uint8))
        return raw.view(torch.bfloat16 if name == "bf16" else torch.float8_e4m3fn)

    ta, tb = tensor(a, mp), tensor(b, np_)
    d = torch.zeros((mp, np_), dtype=torch.float32)
    for n0 in range(0, np_, 256):
        nn = min(256, np_ - n0)
        op = WGMMA("Hopper", f"m64n{nn}k{kstep}.f32.{name}.{name}")
        for m0 in range(0, mp, 64):
            c = torch.zeros((64, nn), dtype=torch.float32)
            for k0 in range(0, k, kstep):
                c = op(ta[m0:m0 + 64, k0:k0 + kstep], tb[n0:n0 + nn, k0:k0 + kstep].T, c)
            d[m0:m0 + 64, n0:n0 + nn] = c
    return d[:m, :n].numpy()


def module_text(module, arch: str, name: str, ptx: bool) -> str:
    """What a GEMM example prints: its tile IR, or with `ptx` the PTX it compiles to for arch."""
    if not ptx:
        return str(module)
    from tile_mlir.driver.compiler import compile as tile_compile
    return tile_compile(module, arch=arch, filename=name).ptx


# ---------------------------------------------------------------- the examples' --run check: fast, exact, sampled
def _bits8(x: np.ndarray, fmt_elem: str) -> np.ndarray:
    """An operand as the bit patterns tile-sim's MMA arithmetic takes (e2m1: one nibble per element)."""
    raw = np.ascontiguousarray(x).view(np.uint8)
    return raw & 0xF if fmt_elem == "e2m1" else raw


def _progress(total: int, desc: str, show: bool):
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit="tile", disable=not show, leave=False)


def fast_blockscaled(a, sfa, b, sfb, fmt: BlockFormat, progress: bool = True) -> np.ndarray:
    """D (fp32, M x N) of the kernel's tcgen05.mma chain (one MMA per K step, D kept in fp32), computed by
    tile-sim's exact integer formulation of MMA-Sim's arithmetic (tile_mlir.sim.mma_numerics, whose tests
    check it against MMA-Sim bit for bit) 128 rows at a time: seconds where MMA-Sim takes minutes.
    `check_sampled` checks it against MMA-Sim here too."""
    from tile_mlir.sim import mma_numerics as mn

    m, k = a.shape
    n = b.shape[0]
    at, bt = _bits8(a, fmt.elem_ptx), np.ascontiguousarray(_bits8(b, fmt.elem_ptx).T)
    sfbt = np.ascontiguousarray(sfb.T)
    d = np.empty((m, n), np.float32)
    spv = fmt.mma_k // fmt.vec
    with _progress(-(-m // 128), "reference D (exact model)", progress) as bar:
        for m0 in range(0, m, 128):
            rows = slice(m0, min(m, m0 + 128))
            c = np.zeros((rows.stop - m0, n), np.uint32)
            if fmt.kind == "mxf8f6f4":  # rounds once per 32 products: the chain is one call over all of K
                c = mn.tcgen05_chain(fmt.kind, "f32", fmt.elem_ptx, fmt.elem_ptx, at[rows], bt, c,
                                     sfa=sfa[rows], sfb=sfbt)
            else:  # G-ST-FDPA rounds once per MMA: MMA by MMA
                for k0 in range(0, k, fmt.mma_k):
                    kb = k0 // fmt.vec
                    c = mn.tcgen05(fmt.kind, "f32", "e2m1x2", "e2m1x2", at[rows, k0:k0 + fmt.mma_k],
                                   bt[k0:k0 + fmt.mma_k], c, m=128, n=n, k=fmt.mma_k, sfa=sfa[rows, kb:kb + spv],
                                   sfb=sfbt[kb:kb + spv], block=fmt.vec, stype=fmt.scale_ptx)
            d[rows] = np.asarray(c, np.uint32).view(np.float32)
            bar.update()
    return d


def fast_wgmma(a, b, progress: bool = True) -> np.ndarray:
    """D (fp32, M x N) of the Hopper kernels' wgmma chain by tile-sim's exact formulation of MMA-Sim's
    arithmetic (one group of products per wgmma along K: the chain is one call over all of K), 64 rows at a
    time."""
    from tile_mlir.sim import mma_numerics as mn

    name = {"bfloat16": "bf16", "float8_e4m3fn": "e4m3"}[a.dtype.name]
    view = np.uint16 if name == "bf16" else np.uint8
    at, bt = np.ascontiguousarray(a).view(view), np.ascontiguousarray(np.ascontiguousarray(b).view(view).T)
    m, k = a.shape
    n = b.shape[0]
    d = np.empty((m, n), np.float32)
    with _progress(-(-m // 64), "reference D (exact model)", progress) as bar:
        for m0 in range(0, m, 64):
            rows = slice(m0, min(m, m0 + 64))
            c = np.zeros((rows.stop - m0, n), np.uint32)
            d[rows] = np.asarray(mn.wgmma("f32", name, name, at[rows], bt, c, n=n, k=k), np.uint32).view(np.float32)
            bar.update()
    return d


def fast_dense(a, b, fmt: DenseFormat, progress: bool = True) -> np.ndarray:
    """D (fp32, M x N) of a dense tcgen05.mma chain over all of K by tile-sim's exact formulation of MMA-Sim's
    arithmetic (one rounding per group of 32 bytes of products along K, so the chain is one call), 128 rows at
    a time."""
    from tile_mlir.sim import mma_numerics as mn

    view = {8: np.uint8, 16: np.uint16, 32: np.uint32}[fmt.elem_bits]
    at, bt = np.ascontiguousarray(a).view(view), np.ascontiguousarray(np.ascontiguousarray(b).view(view).T)
    m = a.shape[0]
    d = np.empty((m, b.shape[0]), np.float32)
    with _progress(-(-m // 128), "reference D (exact model)", progress) as bar:
        for m0 in range(0, m, 128):
            rows = slice(m0, min(m, m0 + 128))
            c = np.zeros((rows.stop - m0, d.shape[1]), np.uint32)
            c = mn.tcgen05_chain(fmt.kind, "f32", fmt.elem_ptx, fmt.elem_ptx, at[rows], bt, c)
            d[rows] = np.asarray(c, np.uint32).view(np.float32)
            bar.update()
    return d


def sample_tiles(m: int, n: int, rows: int, samples: int = 2, cols: int = 8, seed: int = 0) -> list:
    """The (row slice, column slice) of each of ``samples`` random rows x cols tiles of an m x n D."""
    rng = np.random.default_rng(seed)
    tiles = []
    for _ in range(samples):
        m0 = int(rng.integers(0, -(-m // rows))) * rows
        n0 = int(rng.integers(0, -(-n // cols))) * cols
        tiles.append((slice(m0, min(m, m0 + rows)), slice(n0, min(n, n0 + cols))))
    return tiles


def compare_tiles(fast: np.ndarray, tiles, wants) -> tuple[int, int, int]:
    """check_sampled's counts from MMA-Sim's D of each tile (``wants``, in ``tiles``' order)."""
    differ = differ32 = compared = 0
    for (r, c), want in zip(tiles, wants):
        differ += int(np.count_nonzero(to_bf16(want).view(np.uint16) != to_bf16(fast[r, c]).view(np.uint16)))
        differ32 += int(np.count_nonzero(want.view(np.uint32) != fast[r, c].view(np.uint32)))
        compared += want.size
    return differ, differ32, compared


def check_sampled(fast: np.ndarray, mmasim, rows: int, samples: int = 2, cols: int = 8,
                  seed: int = 0, progress: bool = True) -> tuple[int, int, int]:
    """(elements whose bf16 differ, elements whose fp32 differ, elements compared) between ``fast`` (fp32 D of
    the fast model) and MMA-Sim's model on ``samples`` random rows x cols tiles (sample_tiles); ``mmasim(row_slice,
    col_slice)`` computes MMA-Sim's D of one tile from the operands restricted to it (every element of D
    depends on its row and column alone). D is bf16: the bf16 count is the check, the fp32 one a finding."""
    tiles = sample_tiles(*fast.shape, rows, samples, cols, seed)
    wants = []
    with _progress(samples, "MMA-Sim on sampled tiles", progress) as bar:
        for r, c in tiles:
            wants.append(mmasim(r, c))
            bar.update()
    return compare_tiles(fast, tiles, wants)


def check_blockscaled(a, sfa, b, sfb, fmt: BlockFormat, samples: int = 2,
                      progress: bool = True) -> tuple[np.ndarray, tuple[int, int, int]]:
    """(bf16 D of the exact model, check_sampled's counts against MMA-Sim on sampled 128 x 8 tiles)."""
    fast = fast_blockscaled(a, sfa, b, sfb, fmt, progress)
    sampled = check_sampled(fast, lambda r, c: mmasim_blockscaled(a[r], sfa[r], b[c], sfb[c], fmt),
                            128, samples, progress=progress)
    return to_bf16(fast), sampled


def check_wgmma(a, b, samples: int = 2, progress: bool = True) -> tuple[np.ndarray, tuple[int, int, int]]:
    """(bf16 D of the exact model, check_sampled's counts against MMA-Sim on sampled 64 x 8 tiles)."""
    fast = fast_wgmma(a, b, progress)
    sampled = check_sampled(fast, lambda r, c: mmasim_wgmma(a[r], b[c]), 64, samples, progress=progress)
    return to_bf16(fast), sampled


def report_checked(label: str, d: np.ndarray, want: np.ndarray, sampled: tuple[int, int, int]) -> int:
    """The --run line of a check by the exact model: D against it bit for bit, and the model against MMA-Sim
    on the sampled tiles (in bf16, D's type; fp32 differences before the rounding are named too); the exit
    status: 0 when both agree."""
    differ = np.count_nonzero(d.view(np.uint16) != want.view(np.uint16))
    bad, bad32, compared = sampled
    note = f"; {bad32} differ in fp32 before the bf16 rounding" if bad32 else ""
    print(f"{label}: D {'==' if not differ else '!='} the exact model of MMA-Sim's arithmetic, bit for bit "
          f"({differ} of {d.size} differ); the model {'==' if not bad else '!='} MMA-Sim on sampled tiles "
          f"({bad} of {compared} differ{note})")
    return 1 if differ or bad else 0


def report_bits(label: str, d: np.ndarray, want: np.ndarray) -> int:
    """Print whether bf16 D is `want` bit for bit (the examples' --run line); the exit status: 0 when it is."""
    differ = np.count_nonzero(d.view(np.uint16) != want.view(np.uint16))
    print(f"{label}: D {'==' if not differ else '!='} MMA-Sim's model, bit for bit ({differ} of {d.size} differ)")
    return 1 if differ else 0


def to_bf16(d: np.ndarray) -> np.ndarray:
    """fp32 -> bf16 round to nearest even, as cvt.rn.bf16.f32 (ml_dtypes rounds RNE)."""
    return np.asarray(d, np.float32).astype(ml_dtypes.bfloat16)


def add_check_options(p) -> None:
    """The --run check's options, shared by the GEMM examples."""
    p.add_argument("--samples", type=int, default=2, metavar="N",
                   help="--run: tiles of D on which the exact model is checked against MMA-Sim (default 2)")
    p.add_argument("--mmasim-full", action="store_true",
                   help="--run: compare D with MMA-Sim's model in full instead (minutes at 1024^3)")


# ---------------------------------------------------------------- the check started before the kernel runs
#: M x N x K from which start_check runs the reference on worker processes (the exact model costs about
#: 4 ns per multiply-add here, so 2^28 is about a second; below that the workers' start costs more than it saves)
POOL_AT = 1 << 28


def _model_rows(job, r0: int, r1: int) -> np.ndarray:
    """The exact model's fp32 D of rows r0:r1 (every element of D depends on its row and column alone)."""
    logical, fmt = job
    if fmt is None:
        a, b = logical
        return fast_wgmma(a[r0:r1], b, progress=False)
    a, sfa, b, sfb = logical
    return fast_blockscaled(a[r0:r1], sfa[r0:r1], b, sfb, fmt, progress=False)


def _mmasim_tiles(job, tiles) -> list:
    """MMA-Sim's fp32 D of each sampled tile (one task: one torch import)."""
    import torch
    torch.set_num_threads(1)  # 128 x 8 tiles: torch's threads only spin beside tile-sim's workers
    logical, fmt = job
    if fmt is None:
        a, b = logical
        return [mmasim_wgmma(a[r], b[c]) for r, c in tiles]
    a, sfa, b, sfb = logical
    return [mmasim_blockscaled(a[r], sfa[r], b[c], sfb[c], fmt) for r, c in tiles]


class StartedCheck:
    """The --run check's reference, started by :func:`start_check`; :meth:`result` gathers it."""

    def __init__(self, logical, fmt, samples: int, workers: int | None):
        import sys

        from started_work import StartedWork, default_workers

        m, n, k = logical[0].shape[0], logical[-2 if fmt is not None else 1].shape[0], logical[0].shape[1]
        self.shape, self.rows = (m, n), 64 if fmt is None else 128
        self.tiles = sample_tiles(m, n, self.rows, samples)
        tasks = [(_mmasim_tiles, (self.tiles,))] if samples else []  # first: the longest task
        tasks += [(_model_rows, (r0, min(m, r0 + self.rows))) for r0 in range(0, m, self.rows)]
        if workers is None:
            workers = default_workers() if m * n * k >= POOL_AT else 1
        # MMA-Sim's task runs here if this process started torch already (started_work.py: fork)
        local = (0,) if self.tiles and "torch" in sys.modules else ()
        self.work = StartedWork((logical, fmt), tasks, workers, local)

    def result(self, progress: bool = True) -> tuple[np.ndarray, tuple[int, int, int]]:
        """(bf16 D of the exact model, check_sampled's counts of the model against MMA-Sim)."""
        first = 1 if self.tiles else 0
        fast = np.empty(self.shape, np.float32)
        try:
            with _progress(len(self.work.tasks) - first, "reference D (exact model)", progress) as bar:
                for i in range(first, len(self.work.tasks)):
                    r0, r1 = self.work.tasks[i][1]
                    fast[r0:r1] = self.work.result(i)
                    bar.update()
            wants = []
            if self.tiles:
                with _progress(len(self.tiles), "MMA-Sim on sampled tiles", progress) as bar:
                    wants = self.work.result(0)
                    bar.update(len(self.tiles))
        finally:
            self.work.close()
        return to_bf16(fast), compare_tiles(fast, self.tiles, wants)

    def cancel(self) -> None:
        """Stop the reference's workers (the kernel failed)."""
        self.work.cancel()


def start_check(logical, fmt: "BlockFormat | None", samples: int = 2, workers: int | None = None) -> StartedCheck:
    """Start the --run check's reference for the logical operands (``fmt`` None: the Hopper wgmma kernels):
    the exact model's D, 128 (wgmma: 64) rows per task, and MMA-Sim's D of the sampled tiles, on ``workers``
    forked processes (default: every core when M x N x K >= POOL_AT, else none: computed in result()).
    Started before the kernel compiles, it overlaps the compile and the emulation (examples/started_work.py)."""
    return StartedCheck(logical, fmt, samples, workers)


def run_check(label: str, d: np.ndarray, logical, fmt: "BlockFormat | None", args, started=None) -> int:
    """The examples' --run check of D: against the exact model, itself checked against MMA-Sim on sampled
    tiles (``started``: its reference, from start_check before the kernel ran; default: computed now, on
    every core for a large D); with --mmasim-full, against MMA-Sim's model of the whole D. ``fmt`` None: the
    Hopper wgmma kernels."""
    if args.mmasim_full:
        want = to_bf16(mmasim_wgmma(*logical) if fmt is None else mmasim_blockscaled(*logical, fmt))
        return report_bits(label, d, want)
    want, sampled = (started or start_check(logical, fmt, samples=args.samples)).result()
    return report_checked(label, d, want, sampled)
