"""mma_fast.t_fdpa's result for a chain of groups into an f32 D (RZ), with D kept as float64
values between the groups: the whole-tile path of the dense and ``kind::mxf8f6f4`` block32 MMAs.

mma_fast.t_fdpa rounds each group's sum into f32 bits and decodes them again as the next group's
C, some fifty passes over M x N per group beside the few over M x N x L that the products need;
at 2048 x 2048 x 2048 those passes cost twice the products' (measured: docs/emulator.md §10).
Here C stays a float64 array, which holds every f32 value exactly, and each step is a table look-up
or one operation:

* C's exponent is its float64 exponent (f32 normal numbers have the same one; a subnormal C, only
  possible as the chain's first C, is clamped to -126 as mma_fast.decode clamps it); a zero C has
  ``e_zero``, which is below every nonzero C's exponent, so C's exponent is also the floor that a
  zero product or a zero C sets in mma_fast (the floor is max(e_zero, e_C) = e_C);
* e_max of the products, as in mma_fast._product_sums_f32: the exponent of a float64 matmul of
  2^(7 E), divided by 7 (a table indexed by the float64 exponent field);
* C's truncated term trunc(C · 2^(F - e_max)) is exact in float64 (24 significant bits scaled by a
  power of two), as are the sum of the truncated terms (integers below 2^53) and the sum scaled back
  by 2^(e_max - F);
* RZ into f32 of a value in f32's normal range clears the 29 float64 fraction bits f32 lacks
  (mma_fast._round_rz_f32); the result is the next C as it is;
* the products: each operand's values and powers 2^(7 E) are looked up per code (decoded once per
  element type, _operand_table); each product, exact in float32, is scaled by its power of two and
  truncated toward zero by the cast to int32 (C's conversion truncates), and the truncated terms
  are summed in int32 parts that cannot overflow (_int_parts) -- three passes over M x N x L beside
  the outer product, where np.trunc and a float64 sum took four.

What this path does not cover returns None and the caller runs mma_fast.t_fdpa from the start:
NaN or infinity in A, B, C or a scale factor (UE8M0 0xFF), a group result outside f32's normal
range (a subnormal or an overflow, which mma_fast rounds by its general path), other D types and
roundings, or element exponents outside mma_fast's float bounds.  test/python/sim/test_mma_wide.py
checks it against mma_fast.t_fdpa bit for bit, fallbacks included.
"""

from __future__ import annotations

import numpy as np

from . import mma_fast as mf

_BIAS = 1023  # float64 exponent bias
_BAD = 1 << 20  # C's exponent table: a value outside f32's normal range (the chain stops there)
_OFF = 2048  # offset of the power-of-two tables, indexed by exponent + _OFF


def _tables():
    b = np.arange(4096) & 0x7FF  # float64 exponent fields, the sign bit dropped
    e = b - _BIAS
    # the first C: f32 subnormals clamped to -126 (mma_fast.decode), zero -> e_zero (set per call)
    first = np.where(b == 0, 0, np.maximum(e, -126)).astype(np.intp)
    # a group's result: a nonzero value outside [2^-126, 2^128) stops the chain
    later = np.where(b == 0, 0, np.where((e >= -126) & (e <= 127), e, _BAD)).astype(np.intp)
    # e_max of the products from the exponent of sum 2^(7 E) (no nonzero product: below all)
    prod = np.where(b == 0, 2 * mf._LOW, e // 7).astype(np.intp)
    x = np.arange(-_OFF, _OFF)
    p64 = np.ldexp(1.0, np.clip(x, -1022, 1023))
    p32 = mf._pow2_f32(np.clip(x, mf._SCALE_LO, mf._SCALE_HI))
    return first, later, prod, p64, p32


_FIRST, _LATER, _PROD, _P64, _P32 = _tables()
_ZERO: dict = {}


def _zero_tables(e_zero: int):
    """C's exponent tables with a zero C's exponent ``e_zero``."""
    t = _ZERO.get(e_zero)
    if t is None:
        zero = (np.arange(4096) & 0x7FF) == 0
        t = _ZERO[e_zero] = tuple(np.where(zero, e_zero, x).astype(np.intp) for x in (_FIRST, _LATER))
    return t


def covered(atype: str, btype: str, dtype: str, rho: str, e_zero: int, L: int) -> bool:
    """Whether t_fdpa's arguments are of the kinds this path computes (the data may still send
    a call back to mma_fast)."""
    fa, fb = (mf.FORMATS.get("e2m1" if t == "e2m1x2" else t) for t in (atype, btype))
    return fa is not None and fb is not None and dtype == "f32" and rho == "RZ-FP32" and \
        e_zero <= -126 and L < 128 and fa[1] + fb[1] + 2 <= 24


#: element type -> bits of the code that mma_fast.decode reads (it ignores the others): its operands
#: are decoded once per code into a table and looked up (tf32, a 32-bit code, is decoded each time)
_CODE_BITS = {"e4m3": 8, "e5m2": 8, "e3m2": 8, "e2m3": 8, "e2m1": 8, "e2m1x2": 8, "f16": 16, "bf16": 16}
_OPERANDS: dict = {}


def _operand_table(etype: str):
    """(value, 2^(7 E), bad) per code of ``etype``: the element's value as float32 (exact: at most
    24 significant bits, exponent clamped as mma_fast clamps it), the power whose float64 matmul
    gives e_max (0 for a zero), and whether the code is NaN, infinity or a nonzero element with an
    exponent outside mma_fast's float bounds (the call goes back to mma_fast)."""
    t = _OPERANDS.get(etype)
    if t is None:
        codes = np.arange(1 << _CODE_BITS[etype], dtype=np.uint32)
        t = _OPERANDS[etype] = _values(mf.decode(codes, etype))
    return t


def _values(d):
    """(value, 2^(7 E), bad) of each element of a decoded operand (_operand_table)."""
    nz = d.sig != 0
    val = np.where(d.neg, -d.sig, d.sig).astype(np.float32) * \
        mf._pow2_f32((d.exp - d.frac).clip(-126, 127))
    p7 = np.where(nz, mf._pow2_f64(7 * d.exp.clip(mf._EXP_LO, mf._EXP_HI)), 0.0)
    bad = d.nan | d.inf | (nz & ((d.exp < mf._EXP_LO) | (d.exp > mf._EXP_HI)))
    return val, p7, bad


def _operand(bits, etype: str, transpose: bool):
    """(values, 2^(7 E)) of an operand's elements (values transposed if asked), or None where the
    call goes back to mma_fast (_operand_table)."""
    bits = np.asarray(bits)
    if etype in _CODE_BITS:
        val, p7, bad = _operand_table(etype)
        nbits = _CODE_BITS[etype]
        idx = bits.astype(np.intp) & ((1 << nbits) - 1)
        if np.take(bad, idx).any():
            return None
        return np.take(val, idx.T if transpose else idx), np.take(p7, idx)
    val, p7, bad = _values(mf.decode(bits, etype))
    if bad.any():
        return None
    return (np.ascontiguousarray(val.T) if transpose else val), p7


def _int_parts(F: int, L: int) -> int:
    """Parts of the L products of a group summed in int32 each: a truncated term is an integer of
    magnitude below 2^(F+2) (its product is below 2^(e_max+2), scaled by at most 2^(F - e_max)),
    so 2^(29-F) of them sum below 2^31; 0 where even one part could overflow (F > 29)."""
    if F > 29:
        return 0
    return max(1, L >> (29 - F))


def t_fdpa(a_bits, b_bits, c_bits, atype, btype, *, F, e_zero, L, sfa=None, sfb=None):
    """D bits (f32) of mma_fast.t_fdpa(..., dtype="f32", rho="RZ-FP32") for the same arguments
    (``sfa`` M x K/L, ``sfb`` K/L x N UE8M0 codes, or None), or None where it does not apply."""
    mf._one_blas_thread()
    oa = _operand(a_bits, atype, True)
    ob = _operand(b_bits, btype, False) if oa is not None else None
    if ob is None:
        return None
    (vaT, pa), (vb, pb) = oa, ob
    vc = np.asarray(c_bits).astype(np.uint32).view(np.float32).astype(np.float64)
    if not np.isfinite(vc).all():
        return None
    xa = xb = None
    if sfa is not None:
        xa = np.asarray(sfa).astype(np.intp)
        xb = np.asarray(sfb).astype(np.intp)
        if (xa == 0xFF).any() or (xb == 0xFF).any():
            return None
        xa, xb = xa - 127, xb - 127
    K, m = vaT.shape
    n = vb.shape[1]
    first, later = _zero_tables(e_zero)
    rows = max(1, min(m, mf._CHUNK // max(1, n * L)))
    parts = _int_parts(F, L)
    buf = mf._work(0, (L, rows, n)).view(np.float32)
    ibuf = mf._work(1, (L, rows, n))  # the truncated terms (int32)
    sums = mf._work(2, (max(parts, 1), rows, n))
    total = np.empty((m, n), np.float64)
    table = first
    for g, k0 in enumerate(range(0, K, L)):
        ec = table[vc.view(np.int64) >> 52]  # (a negative C: an index from the end, the same entry)
        if table is later and int(ec.max()) >= _BAD:
            return None
        table = later
        emax0 = np.take(_PROD, (pa[:, k0:k0 + L] @ pb[k0:k0 + L]).view(np.int64) >> 52)
        if xa is None:
            u = np.maximum(emax0, ec)  # e_max
            emax = u
        else:
            ex = xa[:, g:g + 1] + xb[g:g + 1, :]  # the scale factors' exponent, added to products
            u = np.maximum(emax0, ec - ex)  # e_max - ex
            emax = u + ex
        q = np.take(_P32, (F + _OFF) - u)  # the products' scale 2^(F - e_max + ex), clamped as mma_fast
        for r0 in range(0, m, rows):
            r1 = min(m, r0 + rows)
            k = r1 - r0
            # each product, exact in float32 (einsum: the outer product, no sum), scaled exactly
            X = np.einsum("km,kn->kmn", vaT[k0:k0 + L, r0:r1], vb[k0:k0 + L], out=buf[:, :k])
            np.multiply(X, q[None, r0:r1], out=X)
            if parts:  # truncated toward zero by the cast to int32, summed exactly in int32 parts
                T = ibuf[:, :k]
                np.copyto(T, X, casting="unsafe")
                S = sums[:, :k]
                np.add.reduce(T.reshape(parts, L // parts, k, n), axis=1, out=S)
                if parts == 1:
                    total[r0:r1] = S[0]
                else:
                    np.add.reduce(S, axis=0, dtype=np.float64, out=total[r0:r1])
            else:
                np.trunc(X, out=X)
                np.sum(X, axis=0, dtype=np.float64, out=total[r0:r1])
        total += np.trunc(vc * np.take(_P64, (F + _OFF) - emax))  # C's term (0 for a zero C)
        v = total * np.take(_P64, emax + (_OFF - F))
        vc = (v.view(np.int64) & mf._RZ_MASK).view(np.float64)  # RZ to f32 (range checked next)
    if int(later[vc.view(np.int64) >> 52].max()) >= _BAD:
        return None
    f = vc.astype(np.float32)
    f[f == 0] = 0  # -0 -> +0
    return f.view(np.uint32)
