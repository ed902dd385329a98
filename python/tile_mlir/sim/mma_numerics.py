"""The arithmetic of the tensor-core instructions: the one place tile-sim calls MMA-Sim.

MMA-Sim (``mmasim``, Microsoft Research, Xie et al., arXiv:2511.10909) models the floating-point
``wgmma.mma_async`` (its "Hopper" model) and ``tcgen05.mma`` (its "Blackwell" model) bit for bit,
from measurements of H100/B200 outputs; its operands are the logical matrices, so everything about
where they come from (descriptors, swizzles, tensor memory, fragments) is the handlers' job.  What
MMA-Sim has no model for is composed here, and only here, from what it has (docs/emulator.md §10):

* integer kinds (wgmma ``.s8/.u8``, tcgen05 ``.kind::i8``): exact products and sums, wrapped to s32
  or saturated (``.satfinite`` / idesc bit 3) -- PTX leaves no other freedom;
* negation (wgmma ``imm-scale-a/b = -1``, idesc bits 13/14): the sign bit of every input element is
  flipped before the model runs (negation is exact in every input format);
* ``scale-input-d`` (tcgen05): D·2^-s is formed in the D format (IEEE multiplication by a power of
  two, exact unless it underflows) and given to the model as its C;
* any number of rows: MMA-Sim computes each D element from its row of A and column of B alone, so
  a warp's 16 rows (wgmma) or a CTA's M/2 rows (``cta_group::2``) use the model built for the
  instruction's shape.

Inputs and outputs are bit patterns (numpy uint32 arrays): A is M x K, B is K x N, C and D are
M x N.  Every floating-point kind of wgmma and tcgen05.mma is computed by ``mma_fast``, an exact
integer restatement of MMA-Sim's algorithm checked against MMA-Sim bit for bit
(``test/python/sim/test_mma_fast.py``, ``bench/sim.py``); MMA-Sim itself serves what it does not
cover, or every MMA when ``TILE_MLIR_SIM_MMA=mmasim``.  torch and mmasim are imported only then.
"""

from __future__ import annotations

import numpy as np

from .. import env as _env
from . import mma_fast, mma_small, mma_wide
from .errors import EmulationError

#: element type -> (bits, sign bit); fp6/fp4 of kind f8f6f4 sit in 8-bit containers (bits 5..0 /
#: 5..2, the tcgen05 decompression format, docs/emulator.md A2), packed fp4 ("e2m1x2") in nibbles
ELEMENT = {"f32": (32, 31), "tf32": (32, 31), "f16": (16, 15), "bf16": (16, 15), "e4m3": (8, 7),
           "e5m2": (8, 7), "e3m2": (8, 5), "e2m3": (8, 5), "e2m1": (8, 5), "e2m1x2": (4, 3),
           "s8": (8, None), "u8": (8, None)}
INTEGER = ("s8", "u8")

_OPS: dict = {}
_torch = None


def _load():
    global _torch
    if _torch is None:
        try:
            import torch
            import mmasim.nv_ptx  # noqa: F401
        except ImportError as e:
            raise EmulationError(
                f"tensor-core MMAs are computed by MMA-Sim, which is not installed ({e}); install "
                f"it with `pip install -e '.[mma]'` (docs/providers.md, 'MMA-Sim')") from None
        torch.set_num_threads(1)  # small matrices: threads only contend with the emulator
        _torch = torch
    return _torch


def _op(cls_name: str, arch: str, shape_and_type: str):
    key = (cls_name, arch, shape_and_type)
    op = _OPS.get(key)
    if op is None:
        _load()
        import mmasim.nv_ptx as nv
        try:
            op = _OPS[key] = getattr(nv, cls_name)(arch, shape_and_type)
        except AssertionError:
            raise EmulationError(f"MMA-Sim has no {arch} model for {shape_and_type}") from None
    return op


def _tensor(bits: np.ndarray, etype: str):
    torch = _load()
    nb = ELEMENT[etype][0]
    if nb == 32:
        return torch.from_numpy(bits.astype(np.uint32).view(np.int32).copy()).view(torch.float32)
    if nb == 16:
        t = torch.from_numpy(bits.astype(np.uint16).view(np.int16).copy())
        return t.view(torch.float16 if etype == "f16" else torch.bfloat16)
    t = torch.from_numpy(bits.astype(np.uint8).copy())
    if etype == "e4m3":
        return t.view(torch.float8_e4m3fn)
    if etype == "e5m2":
        return t.view(torch.float8_e5m2)
    return t  # fp6/fp4 containers: MMA-Sim decodes uint8 itself


def _bits(t, dtype: str) -> np.ndarray:
    torch = _load()
    if dtype == "f32":
        return t.contiguous().view(torch.int32).numpy().view(np.uint32).copy()
    return t.contiguous().view(torch.int16).numpy().view(np.uint16).astype(np.uint32)


def negate(bits: np.ndarray, etype: str) -> np.ndarray:
    """``bits`` with the sign of every element of type ``etype`` flipped."""
    return bits ^ np.uint32(1 << ELEMENT[etype][1])


def _pack_fp4(nibbles: np.ndarray) -> np.ndarray:
    # MMA-Sim's packed fp4 operand: element 2i in the high nibble of byte i, 2i+1 in the low one
    return ((nibbles[:, 0::2] & 0xF) << 4) | (nibbles[:, 1::2] & 0xF)


def integer_mma(a: np.ndarray, b: np.ndarray, c: np.ndarray, atype: str, btype: str,
                saturate: bool) -> np.ndarray:
    """s32 D = A·B + C, exact, then wrapped or saturated (PTX: ``.satfinite`` clamps to the s32
    range)."""
    def val(x, t):
        x = x.astype(np.int64) & 0xFF
        return np.where(x >= 128, x - 256, x) if t == "s8" else x
    ci = c.astype(np.int64) & 0xFFFF_FFFF
    ci = np.where(ci >= 1 << 31, ci - (1 << 32), ci)
    d = val(a, atype) @ val(b, btype) + ci
    if saturate:
        d = np.clip(d, -(1 << 31), (1 << 31) - 1)
    return (d & 0xFFFF_FFFF).astype(np.uint32)


def _reference() -> bool:
    return (_env.get("TILE_MLIR_SIM_MMA") or "") == "mmasim"


#: element type -> bytes of MMA-Sim's operand (its group length L is 32 bytes of products)
_ITEM = {"tf32": 4, "f16": 2, "bf16": 2, "e4m3": 1, "e5m2": 1, "e3m2": 1, "e2m3": 1, "e2m1": 1}


def _fast_dense(dtype, atype, btype, a, b, c, fp8_narrow):
    """MMA-Sim's T-FDPA parameters: F = 25 fraction bits (13 for Hopper's fp8), D rounded RZ to
    f32 (to 13 fraction bits for Hopper's fp8) or RNE to f16; a zero term's exponent -133 / -21."""
    f16 = dtype == "f16"
    F = 13 if fp8_narrow else 25
    rho = "RNE-FP16" if f16 else ("RZ-E8M13" if fp8_narrow else "RZ-FP32")
    e_zero, L = -21 if f16 else -133, 32 // _ITEM[atype]
    if mma_wide.covered(atype, btype, dtype, rho, e_zero, L):
        d = mma_wide.t_fdpa(a, b, c, atype, btype, F=F, e_zero=e_zero, L=L)
        if d is not None:
            return d
    return mma_fast.t_fdpa(a, b, c, atype, btype, dtype, F=F, rho=rho, e_zero=e_zero, L=L)


def _shape(m, n, k):
    return f"m{m}n{n}k{k}"


def fast_wgmma(atype: str) -> bool:
    """Whether wgmma of ``atype`` is computed by the fast path (mma_fast.t_fdpa), which rounds
    per group of L products along K: a chain of them is then one call over the summed K."""
    return not _reference() and atype in _ITEM


def wgmma(dtype: str, atype: str, btype: str, a: np.ndarray, b: np.ndarray, c: np.ndarray, *,
          n: int, k: int, negate_a=False, negate_b=False, saturate=False) -> np.ndarray:
    """D of ``wgmma.mma_async.m64n<n>k<k>.<dtype>.<atype>.<btype>`` for the rows given (MMA-Sim's
    Hopper model; integer kinds exact)."""
    if atype in INTEGER:
        return integer_mma(a, b, c, atype, btype, saturate)
    a, b, c = _operands(a, b, c, dtype, atype, btype, negate_a, negate_b, 0)
    if not _reference() and atype in _ITEM:
        return _fast_dense(dtype, atype, btype, a, b, c, atype in ("e4m3", "e5m2"))
    op = _op("WGMMA", "Hopper", f"{_shape(64, n, k)}.{dtype}.{atype}.{btype}")
    d = op(_tensor(a, atype), _tensor(b, btype), _tensor(c, dtype))
    return _bits(d, dtype)


def tcgen05(kind: str, dtype: str, atype: str, btype: str, a: np.ndarray, b: np.ndarray,
            c: np.ndarray, *, m: int, n: int, k: int, negate_a=False, negate_b=False,
            saturate=False, scale_d: int = 0, sfa: np.ndarray | None = None,
            sfb: np.ndarray | None = None, block: int | None = None,
            stype: str | None = None) -> np.ndarray:
    """D of one CTA's rows of ``tcgen05.mma.kind::<kind>`` (MMA-Sim's Blackwell model; i8
    exact).  ``m`` is the M of the model to use (64 or 128); block-scaled kinds take the scale
    factors as bit patterns: ``sfa`` M x K/block, ``sfb`` K/block x N, of type ``stype``."""
    if kind == "i8":
        return integer_mma(a, b, c, atype, btype, saturate)
    a, b, c = _operands(a, b, c, dtype, atype, btype, negate_a, negate_b, scale_d)
    fast = not _reference()
    if sfa is None and fast and atype in _ITEM:
        return _fast_dense(dtype, atype, btype, a, b, c, False)
    if sfa is not None and fast and dtype == "f32":
        if atype == "e2m1x2" and k == 64:  # MMA-Sim's grouped sum (G-ST-FDPA)
            return mma_fast.gst_fdpa(a, b, c, sfa, sfb, stype, block=block)
        if k == 32 and block == 32 and stype == "ue8m0" and atype in _ITEM:
            return _block32(a, b, c, atype, btype, sfa, sfb)
    if sfa is None:
        op = _op("TCGen05MMA", "Blackwell",
                 f"{_shape(m, n, k)}.kind::{kind}.{dtype}.{atype}.{btype}")
        return _bits(op(_tensor(a, atype), _tensor(b, btype), _tensor(c, dtype)), dtype)
    torch = _load()
    at = "e2m1" if atype == "e2m1x2" else atype
    bt = "e2m1" if btype == "e2m1x2" else btype
    op = _op("TCGen05MMABlockScale", "Blackwell",
             f"{_shape(128, n, k)}.kind::{kind}.block{block}.{dtype}.{at}.{bt}.{stype}")
    if atype == "e2m1x2":
        ta, tb = _tensor(_pack_fp4(a), "u8"), _tensor(_pack_fp4(b.T).T, "u8")  # packed along K
    else:
        ta, tb = _tensor(a, atype), _tensor(b, btype)
    sview = torch.float8_e8m0fnu if stype == "ue8m0" else torch.float8_e4m3fn
    tsa = torch.from_numpy(sfa.astype(np.uint8).copy()).view(sview)
    tsb = torch.from_numpy(sfb.astype(np.uint8).copy()).view(sview)
    return _bits(op(ta, tb, _tensor(c, dtype), tsa, tsb), dtype)


def tcgen05_fusable(kind: str, dtype: str, atype: str, k: int, block, stype, scaled: bool) -> bool:
    """Whether ``tcgen05`` serves this kind by mma_fast.t_fdpa, which rounds once per group of L
    products along K with one MMA's K a multiple of L: MMAs one after another on one D are then
    one :func:`tcgen05_chain` over the summed K (not kind::mxf4 / mxf4nvf4: G-ST-FDPA rounds once
    over all of an MMA's groups; not i8: saturation)."""
    if _reference() or atype not in _ITEM or kind == "i8":
        return False
    if not scaled:
        return k % (32 // _ITEM[atype]) == 0
    return dtype == "f32" and k == 32 and block == 32 and stype == "ue8m0"


def tcgen05_chain(kind: str, dtype: str, atype: str, btype: str, a: np.ndarray, b: np.ndarray,
                  c: np.ndarray, *, negate_a=False, negate_b=False, scale_d: int = 0, sfa=None,
                  sfb=None) -> np.ndarray:
    """D of tcgen05.mma one after another on one D, their A (M x sK), B (sK x N) and scale
    factors (sfa M x s·K/32, sfb s·K/32 x N) side by side, C the first's (scaled by its
    scale-input-d): the same groups in the same order as :func:`tcgen05` MMA by MMA, where
    :func:`tcgen05_fusable`."""
    a, b, c = _operands(a, b, c, dtype, atype, btype, negate_a, negate_b, scale_d)
    if sfa is None:
        return _fast_dense(dtype, atype, btype, a, b, c, False)
    return _block32(a, b, c, atype, btype, sfa, sfb)


def _operands(a, b, c, dtype: str, atype: str, btype: str, negate_a, negate_b, scale_d: int):
    """A and B negated as asked, C scaled by 2^-scale_d (scale-input-d)."""
    if negate_a:
        a = negate(a, atype)
    if negate_b:
        b = negate(b, btype)
    if scale_d:
        c = _scale_c(c, dtype, scale_d)
    return a, b, c


def _block32(a, b, c, atype: str, btype: str, sfa, sfb) -> np.ndarray:
    """kind::mxf8f6f4 block32 with ue8m0 scales, f32 D: MMA-Sim's T-FDPA parameters for it."""
    if mma_wide.covered(atype, btype, "f32", "RZ-FP32", -133, 32):
        d = mma_wide.t_fdpa(a, b, c, atype, btype, F=25, e_zero=-133, L=32, sfa=sfa, sfb=sfb)
        if d is not None:
            return d
    return mma_fast.t_fdpa(a, b, c, atype, btype, "f32", F=25, rho="RZ-FP32", e_zero=-133, L=32,
                           sfa=sfa, sfb=sfb, stype="ue8m0")


def _scale_c(c: np.ndarray, dtype: str, s: int) -> np.ndarray:
    if dtype == "f32":
        x = c.astype(np.uint32).view(np.float32)
        return (x * np.float32(2.0 ** -s)).astype(np.float32).view(np.uint32)
    x = c.astype(np.uint16).view(np.float16)
    return (x * np.float16(2.0 ** -s)).astype(np.float16).view(np.uint16).astype(np.uint32)


# ------------------------------------------------------------------------------- mma.sync
#: .target -> MMA-Sim's architecture for ``mma.sync`` (its per-architecture T-FDPA parameters)
MMA_SYNC_ARCH = {"sm_80": "Ampere", "sm_86": "Ampere", "sm_87": "Ampere", "sm_89": "Ada Lovelace",
                 "sm_90": "Hopper", "sm_100": "Blackwell", "sm_101": "Blackwell",
                 "sm_103": "Blackwell", "sm_110": "Blackwell", "sm_120": "RTX Blackwell",
                 "sm_121": "RTX Blackwell"}
#: MMA-Sim's mma.sync parameters per architecture: fraction bits F kept below the group's largest
#: exponent, the bytes of products per group, the exponent of a zero term (f16 D, f32 D)
_MMA_SYNC_PARAMS = {"Ampere": (24, 16, -20, -132), "Ada Lovelace": (24, 16, -20, -132),
                    "Hopper": (25, 32, -21, -133), "Blackwell": (25, 32, -21, -133),
                    "RTX Blackwell": (25, 32, -21, -133)}


def mma_sync_arch(target: str | None) -> str:
    """MMA-Sim's architecture name for a module's ``.target`` (``sm_90a`` -> Hopper)."""
    base = (target or "sm_100a").split(",")[0].strip()
    base = base[:-1] if base.endswith(("a", "f")) else base
    arch = MMA_SYNC_ARCH.get(base)
    if arch is None:
        raise EmulationError(f"mma.sync: no MMA-Sim model for target {target!r}")
    return arch


def mma_sync(arch: str, dtype: str, atype: str, btype: str, a: np.ndarray, b: np.ndarray,
             c: np.ndarray, *, saturate=False, bitop: str | None = None) -> np.ndarray:
    """D of ``mma.sync`` (A M x K, B K x N, C M x N bit patterns; D of ``dtype``): MMA-Sim's
    T-FDPA for the floating kinds with its parameters for ``arch`` (fp8 truncated to 13 fraction
    bits on Ada, as measured), f64 as K fused multiply-adds in K order (MMA-Sim's MMA_FMA), the
    integer kinds exact, b1 as popcounts of ``bitop``."""
    if atype in ("s8", "u8", "s4", "u4"):
        return _int_mma(a, b, c, atype, btype, saturate)
    if atype == "b1":
        x = a.astype(np.int64)[:, :, None], b.astype(np.int64)[None, :, :]
        terms = (x[0] & x[1]) if bitop == "and" else (x[0] ^ x[1])
        ci = c.astype(np.int64) & 0xFFFF_FFFF
        return ((terms.sum(axis=1) + ci) & 0xFFFF_FFFF).astype(np.uint32)
    if atype == "f64":
        return fma_chain_f64(a, b, c)
    F, lbytes, ez16, ez32 = _MMA_SYNC_PARAMS[arch]
    rho = "RNE-FP16" if dtype == "f16" else "RZ-FP32"
    if atype in ("e4m3", "e5m2") and arch == "Ada Lovelace":
        F, rho = 13, ("RNE-FP16" if dtype == "f16" else "RZ-E8M13")
    if _reference():
        shape = _shape(a.shape[0], b.shape[1], a.shape[1])
        op = _op("MMA", arch, f"{shape}.{dtype}.{atype}.{btype}.{dtype}")
        return _bits(op(_tensor(a, atype), _tensor(b, btype), _tensor(c, dtype)), dtype)
    return mma_small.t_fdpa(a, b, c, atype, btype, dtype, F=F, rho=rho,
                            e_zero=ez16 if dtype == "f16" else ez32, L=lbytes // _ITEM[atype])


def _int_mma(a, b, c, atype, btype, saturate):
    def val(x, t):
        bits = 4 if t in ("s4", "u4") else 8
        x = x.astype(np.int64) & ((1 << bits) - 1)
        return np.where(x >= 1 << (bits - 1), x - (1 << bits), x) if t[0] == "s" else x
    ci = c.astype(np.int64) & 0xFFFF_FFFF
    d = val(a, atype) @ val(b, btype) + np.where(ci >= 1 << 31, ci - (1 << 32), ci)
    if saturate:
        d = np.clip(d, -(1 << 31), (1 << 31) - 1)
    return (d & 0xFFFF_FFFF).astype(np.uint32)


def fma_chain_f64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """d = fma(a[:, k], b[k, :], d) for k = 0..K-1 from d = C, each fma rounded once (IEEE,
    round to nearest even): the exact sum as integers over a power of two, then Python's
    correctly rounded int / int division."""
    import math
    fa = a.astype(np.uint64).view(np.float64).tolist()
    fb = b.astype(np.uint64).view(np.float64).tolist()
    d = c.astype(np.uint64).view(np.float64).tolist()
    for i, row in enumerate(d):
        for j in range(len(row)):
            acc = row[j]
            for k, x in enumerate(fa[i]):
                acc = _fma(x, fb[k][j], acc, math)
            row[j] = acc
    return np.array(d, np.float64).view(np.uint64)


def _fma(x, y, z, math):
    if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
        return x * y + z  # inf / NaN: the unfused result is the fused one
    (nx, dx), (ny, dy), (nz, dz) = x.as_integer_ratio(), y.as_integer_ratio(), z.as_integer_ratio()
    den = max(dx * dy, dz)  # powers of two: the larger is a multiple of the smaller
    num = nx * ny * (den // (dx * dy)) + nz * (den // dz)
    if num == 0:  # an exact zero sum: -0 only from two negative zeros (IEEE 754 6.3)
        neg_p = (math.copysign(1.0, x) * math.copysign(1.0, y)) < 0
        return -0.0 if (nx * ny == 0 and z == 0 and neg_p and math.copysign(1.0, z) < 0) else 0.0
    try:
        return num / den
    except OverflowError:
        return math.copysign(math.inf, num)
