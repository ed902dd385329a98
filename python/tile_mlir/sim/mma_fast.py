"""Exact numpy formulations of MMA-Sim's tensor-core arithmetic, for the kinds our kernels use.

MMA-Sim (docs/emulator.md §10) models each output element as fused dot-product-adds over groups
of at most L products and the accumulator C, evaluated in float64 torch tensors.  Its algorithm,
restated here in integers so that numpy can run it over whole tiles:

* every input element is ``(-1)^s · I · 2^(e - m)`` with an integer significand I of m fraction
  bits and its exponent clamped at the format's subnormal exponent;
* truncated fused sum (``t_fdpa``, wgmma and dense tcgen05.mma; ``st_fdpa``, kind::mxf8f6f4):
  each product (and C) has exponent E = e_a + e_b (+ the two scale exponents); a zero term has the
  exponent ``e_zero``; with e_max the largest E of the group, each term is truncated toward zero
  to F fraction bits below 2^e_max, the truncated terms are added exactly, and the sum is rounded
  once into D (RZ to f32, RZ to 13 fraction bits, or RNE to f16); a zero D is +0 and a NaN the
  canonical one;
* grouped sum (``gst_fdpa``, kind::mxf4 / mxf4nvf4): the 16 products of each group are added
  exactly first (fp4 products are multiples of 1/4 below 36, so an fp32 matmul is exact), each
  group sum is scaled by its scale factors, and the groups and C are then truncated and added as
  above (a group whose products are all zero, or whose scale is zero, has exponent e_zero).

Integer significands make each truncation one right shift of a magnitude below 2^(F+2), so a tile
costs a few int32 passes over M x N x L instead of MMA-Sim's float64 normalisations.  NaN and
infinity follow IEEE sums (NaN from a NaN input, 0 x inf or inf - inf), found by small matmuls of
indicator matrices.  ``tile_mlir.sim.mma_numerics`` calls this module and falls back to MMA-Sim
for what it does not cover; ``bench/sim.py`` and ``test/python/sim/test_mma_fast.py`` check it
against MMA-Sim bit for bit.
"""

from __future__ import annotations

import threading

import numpy as np

#: element type -> (exponent bits, fraction bits, IEEE inf/NaN encodings, e4m3-style NaN only)
FORMATS = {"f32": (8, 23, True, False), "tf32": (8, 10, True, False), "f16": (5, 10, True, False),
           "bf16": (8, 7, True, False), "e4m3": (4, 3, False, True), "e5m2": (5, 2, True, False),
           "e3m2": (3, 2, False, False), "e2m3": (2, 3, False, False),
           "e2m1": (2, 1, False, False), "ue8m0": (8, 0, False, False),
           "ue4m3": (4, 3, False, True)}
_LOW = -(1 << 13)  # the exponent given to zero inputs: far below every e_zero, so they never set
#                   e_max; two of them still sum within int16 (the exponent planes of _product_sums)
_CHUNK = 1 << 18  # elements of the M x N x L working arrays per pass: 1 MiB of int32 stays in
#                  cache through the passes (2x faster than 8 MiB, measured)
_blas_pinned = False
_LOCAL = threading.local()  # an executor may run launches in threads of one process


def _work(k, shape):
    """Working array ``k`` of ``shape`` (int32), kept between calls: fresh multi-MiB arrays cost
    more in page faults than the arithmetic on them (measured 3x)."""
    size = int(np.prod(shape))
    work = getattr(_LOCAL, "work", None)
    if work is None:
        work = _LOCAL.work = {}
    buf = work.get(k)
    if buf is None or buf.size < size:
        buf = work[k] = np.empty(max(size, _CHUNK), np.int32)
    return buf[:size].reshape(shape)


def _work16(k, shape):
    """Working array ``k`` as int16 (the exponent planes), in the same kept buffer."""
    size = int(np.prod(shape))
    return _work(k, (size + 1) // 2).view(np.int16)[:size].reshape(shape)


def _one_blas_thread():
    """Pin numpy's OpenBLAS to one thread: the small matmuls here gain nothing from threads, and
    on a loaded machine their spinning threads made one MMA 100x slower (150 ms instead of
    1.5 ms, measured); tile-sim's parallelism is its worker processes.  No OpenBLAS: nothing."""
    global _blas_pinned
    if _blas_pinned:
        return
    _blas_pinned = True
    import ctypes
    import re
    try:
        with open("/proc/self/maps") as f:
            libs = sorted(set(re.findall(r"(/\S*openblas\S*\.so\S*)", f.read())))
    except OSError:
        return
    for path in libs:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for sym in ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
                    "openblas_set_num_threads64_", "openblas_set_num_threads"):
            fn = getattr(lib, sym, None)
            if fn is not None:
                fn(1)
                break


class Decoded:
    """An operand as numpy arrays of its elements: sign (bool), integer significand ``sig`` of
    ``frac`` fraction bits (int32) and exponent ``exp`` (int32, _LOW for zero), so that the value
    is (-1)^neg · sig · 2^(exp - frac); NaN and infinity flags (their sig is 0)."""
    __slots__ = ("neg", "sig", "exp", "nan", "inf", "frac")

    def __init__(self, neg, sig, exp, nan, inf, frac):
        self.neg, self.sig, self.exp, self.nan, self.inf, self.frac = neg, sig, exp, nan, inf, frac

    @property
    def special(self) -> bool:
        return bool(self.nan.any() or self.inf.any())


def _part(d: Decoded, idx) -> Decoded:
    return Decoded(d.neg[idx], d.sig[idx], d.exp[idx], d.nan[idx], d.inf[idx], d.frac)


def decode(bits: np.ndarray, etype: str) -> Decoded:
    """Split the bit patterns of ``etype`` into sign, significand and exponent: fp6 / fp4 sit in
    the tcgen05 8-bit containers (bits 5..0 / 5..2), "e2m1x2" is fp4 given as nibbles, "tf32" an
    f32 pattern truncated to tf32 as MMA-Sim does."""
    b = np.asarray(bits).astype(np.uint32).view(np.int32)  # every format fits 32 bits: int32 passes
    if etype == "tf32":
        b = (b >> 13) & 0x7FFFF  # MMA-Sim truncates f32 operands to tf32 first
    elif etype in ("e3m2", "e2m3"):
        b = b & 0x3F
    elif etype == "e2m1":
        b = (b & 0x3F) >> 2
    elif etype == "e2m1x2":
        etype, b = "e2m1", b & 0xF
    E, M, ieee, e4m3 = FORMATS[etype]
    signed = etype not in ("ue8m0", "ue4m3")
    neg = ((b >> (E + M)) & 1).astype(bool) if signed else np.zeros(b.shape, bool)
    ef = (b >> M) & ((1 << E) - 1)
    mf = b & ((1 << M) - 1)
    bias = (1 << (E - 1)) - 1
    if etype == "ue8m0":
        bias = 127
    nan = np.zeros(b.shape, bool)
    inf = np.zeros(b.shape, bool)
    if ieee:
        top = ef == (1 << E) - 1
        nan, inf = top & (mf != 0), top & (mf == 0)
    elif e4m3:
        nan = (ef == (1 << E) - 1) & (mf == (1 << M) - 1)
    elif etype == "ue8m0":
        nan = ef == 0xFF
    sub = ef == 0
    if etype == "ue8m0":  # no fraction bits, no subnormals: 2^(ef - 127)
        sig = np.ones(b.shape, np.int32)
        exp = (ef - bias).astype(np.int32)
    else:
        sig = np.where(sub, mf, mf | (1 << M)).astype(np.int32)
        exp = (np.where(sub, 1, ef) - bias).astype(np.int32)
    sig[nan | inf] = 0
    exp = np.where(sig == 0, _LOW, exp).astype(np.int32)
    return Decoded(neg, sig, exp, nan, inf, M)


def _specials(a: Decoded, b: Decoded, c: Decoded | None, scale_nan=None):
    """(nan, +inf, -inf) masks of M x N: IEEE outcomes of the products A·B (K axis contracted)
    and C."""
    f = np.float32
    za, zb = (a.sig == 0) & ~a.nan & ~a.inf, (b.sig == 0) & ~b.nan & ~b.inf
    pa, na = (~a.neg & ~za & ~a.nan).astype(f), (a.neg & ~za & ~a.nan).astype(f)
    pb, nb = (~b.neg & ~zb & ~b.nan).astype(f), (b.neg & ~zb & ~b.nan).astype(f)
    ipa, ina = (a.inf & ~a.neg).astype(f), (a.inf & a.neg).astype(f)
    ipb, inb = (b.inf & ~b.neg).astype(f), (b.inf & b.neg).astype(f)
    nan = a.nan.any(axis=1)[:, None] | b.nan.any(axis=0)[None, :]
    nan = nan | ((a.inf.astype(f) @ zb.astype(f)) > 0) | ((za.astype(f) @ b.inf.astype(f)) > 0)
    pinf = (ipa @ pb + ina @ nb + pa @ ipb + na @ inb) > 0
    ninf = (ipa @ nb + ina @ pb + pa @ inb + na @ ipb) > 0
    if c is not None:
        nan = nan | c.nan
        pinf = pinf | (c.inf & ~c.neg)
        ninf = ninf | (c.inf & c.neg)
    if scale_nan is not None:
        nan = nan | scale_nan
    return nan | (pinf & ninf), pinf & ~ninf & ~nan, ninf & ~pinf & ~nan


def _product_sums(a: Decoded, b: Decoded, F: int, e_zero: int, c: Decoded, extra=None):
    """(sum, e_max): the truncated fused sum of the L products of each (m, n) and C, as the
    integer sum of the truncated terms in units of 2^(e_max - F).  ``extra``: M x N exponents
    added to every product (the block scales)."""
    if _float_exact(a, b):
        return _product_sums_f32(a, b, F, e_zero, c, extra)
    return _product_sums_int(a, b, F, e_zero, c, extra)


#: the float path's bounds: element exponents (of nonzero elements) within which every product
#: and its scaled value are normal float32 numbers, and the powers 2^(7 E) normal float64 ones
_EXP_LO, _EXP_HI = -30, 60
_SCALE_LO, _SCALE_HI = -126, 95  # float32 powers of two a term is scaled by (clamped: see below)


def _float_exact(a: Decoded, b: Decoded) -> bool:
    """Whether _product_sums_f32 computes exactly what _product_sums_int does: each product's
    significand fits float32's 24 bits and every element exponent lies in [_EXP_LO, _EXP_HI]."""
    if a.frac + b.frac + 2 > 24 or a.sig.shape[1] >= 128:
        return False
    for d in (a, b):
        e = d.exp[d.sig != 0]
        if e.size and (int(e.min()) < _EXP_LO or int(e.max()) > _EXP_HI):
            return False
    return True


def _product_sums_f32(a: Decoded, b: Decoded, F: int, e_zero: int, c: Decoded, extra=None):
    """_product_sums_int's result by float arithmetic, in four passes over M x N x L instead of
    eight: e_max as the exponent of a float64 matmul of 2^(7 E) (a sum of at most L < 2^7 such
    powers lies in [2^(7 e_max), 2^(7 e_max + 7)), rounding included: a sum of non-negative
    floats never falls below its largest term); each product (-1)^s sig_a sig_b 2^(E - fa - fb)
    exact in float32 (at most 24 significand bits), scaled by 2^(F - e_max) to the units of the
    sum (exact: a power of two, normal by the exponent bounds), truncated toward zero (np.trunc:
    the magnitude truncated, the sign kept, as MMA-Sim's truncation of each term) and summed in
    float64 (integers below 2^(F+2), at most L of them: exact)."""
    m, L = a.sig.shape
    n = b.sig.shape[1]
    ec = np.where(c.sig == 0, e_zero, c.exp + 0)
    nz = (a.sig != 0).astype(np.float32) @ (b.sig != 0).astype(np.float32)
    floor = np.maximum(np.where(nz < L, e_zero, ec), ec)
    pa = np.where(a.sig != 0, _pow2_f64(7 * a.exp.clip(_EXP_LO, _EXP_HI)), 0.0)
    pb = np.where(b.sig != 0, _pow2_f64(7 * b.exp.clip(_EXP_LO, _EXP_HI)), 0.0)
    powers = pa @ pb  # (normal or 0: its exponent field is floor(log2))
    emax0 = ((powers.view(np.int64) >> 52) - 1023) // 7
    emax0[powers == 0] = 2 * _LOW  # (no nonzero product: below every floor)
    ex = 0 if extra is None else extra
    emax = np.maximum(emax0 + ex, floor).astype(np.int32)
    # the products' scale: 2^(F - (emax - extra)); clamped where no product reaches a unit (all
    # terms then truncate to 0 either way) so that the scale stays a normal float32
    scale = _pow2_f32(np.clip(F - (emax - ex), _SCALE_LO, _SCALE_HI))
    va = np.where(a.neg, -a.sig, a.sig).astype(np.float32) * _pow2_f32((a.exp - a.frac).clip(-126, 127))
    vb = np.where(b.neg, -b.sig, b.sig).astype(np.float32) * _pow2_f32((b.exp - b.frac).clip(-126, 127))
    vaT = np.ascontiguousarray(va.T)  # (L, m): the working array is (L, rows, n), K the outer axis
    out_sum = np.empty((m, n), np.float64)
    rows = max(1, min(m, _CHUNK // max(1, n * L)))
    buf = _work(0, (L, rows, n)).view(np.float32)
    for r0 in range(0, m, rows):
        r1 = min(m, r0 + rows)
        X = np.multiply(vaT[:, r0:r1, None], vb[:, None, :], out=buf[:, :r1 - r0])
        np.multiply(X, scale[None, r0:r1], out=X)
        np.trunc(X, out=X)
        np.sum(X, axis=0, dtype=np.float64, out=out_sum[r0:r1])
    # C, (-1)^s sig 2^(ec - c.frac), in the same units, truncated toward zero (exact in float64: sig
    # has at most 24 bits and is shifted left by at most F - c.frac; a power of two scales it)
    sh = np.clip((emax - ec) + (c.frac - F), -1000, 1000)
    out_sum += np.trunc(np.where(c.neg, -c.sig, c.sig).astype(np.float64) * _pow2_f64(-sh))
    return out_sum.astype(np.int64), emax


def _pow2_f64(e: np.ndarray) -> np.ndarray:
    """2.0 ** e for integers e in [-1022, 1023], from the exponent field (faster than np.ldexp)."""
    return ((np.asarray(e).astype(np.int64) + 1023) << 52).view(np.float64)


def _pow2_f32(e: np.ndarray) -> np.ndarray:
    """np.float32(2) ** e for integers e in [-126, 127], from the exponent field."""
    return ((np.asarray(e).astype(np.int32) + 127) << 23).view(np.float32)


def _product_sums_int(a: Decoded, b: Decoded, F: int, e_zero: int, c: Decoded, extra=None):
    """_product_sums by integer passes (any exponents): the reference formulation."""
    m, L = a.sig.shape
    n = b.sig.shape[1]
    up = F - a.frac - b.frac  # a product's magnitude in units of 2^(E - F) is sig_a·sig_b << up
    assert up >= 0 and F + 2 < 31
    sa = (a.sig.astype(np.int64) << up).astype(np.int32)
    ea, eb = a.exp, b.exp
    # C's term and whether a zero product exists, both per (m, n)
    ec = np.where(c.sig == 0, e_zero, c.exp + 0)
    nz = (a.sig != 0).astype(np.float32) @ (b.sig != 0).astype(np.float32)
    floor = np.where(nz < L, e_zero, ec)
    floor = np.maximum(floor, ec)
    # the working arrays are (L, rows, n): reductions over K are then element-wise over planes
    # magnitudes, and the signs as 0 / -1 masks: a truncated signed term is (x ^ s) - s of its
    # truncated magnitude x, s = s_a ^ s_b, and the sum of the -s over K counts the products of
    # unlike signs (a matmul)
    saT = np.ascontiguousarray(sa.T)  # (L, m)
    sbs = np.ascontiguousarray(b.sig)  # (L, n)
    s_aT = np.ascontiguousarray(-a.neg.T.astype(np.int32))[:, :, None]  # (L, m, 1)
    s_b = -b.neg.astype(np.int32)[:, None, :]  # (L, 1, n)
    na, nb = a.neg.astype(np.float32), b.neg.astype(np.float32)
    unlike = (na @ (1 - nb) + (1 - na) @ nb).astype(np.int64)  # (m, n): the count of s = -1
    # exponents and shifts in int16 (half the bytes of the planes' passes): |E| <= 2^14 and
    # 0 <= d = e_max - E < 2^15, as element exponents are above -2^8 or _LOW
    eaT = np.ascontiguousarray(ea.T).astype(np.int16)
    eb = eb.astype(np.int16)
    out_sum = np.empty((m, n), np.int64)
    out_emax = np.empty((m, n), np.int32)
    rows = max(1, min(m, _CHUNK // max(1, n * L)))
    bE, bP = _work16(0, (L, rows, n)), _work(1, (L, rows, n))
    for r0 in range(0, m, rows):
        r1 = min(m, r0 + rows)
        k = r1 - r0
        E = np.add(eaT[:, r0:r1, None], eb[:, None, :], out=bE[:, :k])  # (L, r, n)
        emax0 = E.max(axis=0)
        if extra is None:
            emax = np.maximum(emax0, floor[r0:r1])
            d = np.subtract(emax.astype(np.int16), E, out=E)  # (one type: 4x faster than mixed)
        else:
            emax = np.maximum(emax0 + extra[r0:r1], floor[r0:r1])
            d = np.subtract((emax - extra[r0:r1]).astype(np.int16), E, out=E)
        P = np.multiply(saT[:, r0:r1, None], sbs[:, None, :], out=bP[:, :k])  # magnitudes
        P >>= d  # truncated (numpy: a shift by >= 32 bits gives 0)
        P ^= s_aT[:, r0:r1]
        P ^= s_b
        h = L // 2  # two int32 halves: each sum stays below 2^31
        out_sum[r0:r1] = P[:h].sum(axis=0, dtype=np.int32)
        out_sum[r0:r1] += P[h:].sum(axis=0, dtype=np.int32)
        out_sum[r0:r1] += unlike[r0:r1]
        out_emax[r0:r1] = emax
    # C: significand of c.frac fraction bits, truncated to F fraction bits below 2^e_max
    sh = (out_emax - ec) + (c.frac - F)
    cs = c.sig.astype(np.int64)
    tc = np.where(sh >= 0, cs >> np.minimum(np.maximum(sh, 0), 62), cs << np.maximum(-sh, 0))
    out_sum += np.where(c.neg, -tc, tc)
    return out_sum, out_emax


def _round(total: np.ndarray, emax: np.ndarray, F: int, rho: str) -> np.ndarray:
    """D bits of total · 2^(emax - F) (exact in float64: |total| < 2^53), rounded as ``rho``."""
    v = np.ldexp(total.astype(np.float64), (emax - F).astype(np.int32))
    if rho == "RZ-FP32":
        bits = _round_rz_f32(v)
        if bits is not None:
            return bits
    with np.errstate(over="ignore"):
        if rho == "RNE-FP16":
            h = v.astype(np.float16)  # numpy rounds double -> half once, to nearest even
            h[h == 0] = 0  # -0 -> +0
            return h.view(np.uint16).astype(np.uint32)
        f = v.astype(np.float32)
    away = np.abs(f.astype(np.float64)) > np.abs(v)
    f[away] = np.nextafter(f[away], np.float32(0))
    big = np.abs(v) >= 2.0 ** 128
    f[big] = np.copysign(np.float32(np.inf), v[big])
    f[f == 0] = 0
    out = f.view(np.uint32)
    if rho == "RZ-E8M13":
        out = out & np.uint32(0xFFFFFC00)
    return out


_RZ_MASK = np.int64(~((1 << 29) - 1))  # float64 fraction bits below float32's 23


def _round_rz_f32(v: np.ndarray):
    """float32 bits of v rounded toward zero, by clearing the 29 fraction bits float32 lacks (the
    cast of what is left is exact), where every nonzero |v| is at least 2^-126 (a normal float32;
    otherwise None: _round's general path); |v| >= 2^128 is infinity, -0 is +0, as _round does."""
    a = np.abs(v)
    if np.any((a < 2.0 ** -126) & (a != 0)):
        return None
    with np.errstate(over="ignore"):
        f = (v.view(np.int64) & _RZ_MASK).view(np.float64).astype(np.float32)
    f[f == 0] = 0
    return f.view(np.uint32)


def _finish(bits, nan, pinf, ninf, dtype):
    if dtype == "f16":
        qnan, pi, ni = 0x7FFF, 0x7C00, 0xFC00
    else:
        qnan, pi, ni = 0x7FFFFFFF, 0x7F800000, 0xFF800000
    bits = np.where(pinf, pi, bits)
    bits = np.where(ninf, ni, bits)
    return np.where(nan, qnan, bits).astype(np.uint32)


def t_fdpa(a_bits, b_bits, c_bits, atype, btype, dtype, *, F, rho, e_zero, L,
           sfa=None, sfb=None, stype=None):
    """D of A (M x K) · B (K x N) + C in groups of L along K (ST-FDPA when scale factors are
    given: one scale per row of A and column of B and group, ``sfa`` M x K/L, ``sfb`` K/L x N)."""
    _one_blas_thread()
    c = c_bits
    K = a_bits.shape[1]
    # decoded once: decode is element-wise, so slicing its result is decoding the slice (a K
    # chain of MMAs in one call pays its small-array numpy overhead once, not per group)
    da, db = decode(a_bits, atype), decode(b_bits, btype)
    for g, k0 in enumerate(range(0, K, L)):
        a = da if K == L else _part(da, np.s_[:, k0:k0 + L])
        b = db if K == L else _part(db, np.s_[k0:k0 + L])
        cd = decode(c, dtype)
        extra = scale_nan = None
        if sfa is not None:
            xa, xb = decode(sfa[:, g:g + 1], stype), decode(sfb[g:g + 1, :], stype)
            extra = (xa.exp + xb.exp).astype(np.int32)  # sig is 1: ue8m0 scales are powers of two
            scale_nan = xa.nan | xb.nan
        total, emax = _product_sums(a, b, F, e_zero, cd, extra)
        bits = _round(total, emax, F, rho)
        if a.special or b.special or cd.special or (scale_nan is not None and scale_nan.any()):
            bits = _finish(bits, *_specials(a, b, cd, scale_nan), dtype)
        c = bits
    return c


def gst_fdpa(a_nib, b_nib, c_bits, sfa, sfb, stype, *, G=16, F=35, e_zero=-139, block):
    """D of kind::mxf4 / mxf4nvf4 (fp4 A M x K and B K x N as nibbles, f32 C): group sums of G
    products, scaled by ``sfa`` (M x K/block) and ``sfb`` (K/block x N) of type ``stype``."""
    _one_blas_thread()
    vals = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6], np.float32)
    av, bv = vals[a_nib & 0xF], vals[b_nib & 0xF]
    K = av.shape[1]
    m, n = av.shape[0], bv.shape[1]
    c = decode(c_bits, "f32")
    ngroups = K // G
    p4 = np.empty((ngroups, m, n), np.int64)  # 4 x group sum: an integer below 2^12
    allzero = np.empty((ngroups, m, n), bool)
    for g in range(ngroups):
        sl = slice(g * G, (g + 1) * G)
        p4[g] = np.rint((av[:, sl] @ bv[sl, :]) * 4).astype(np.int64)
        allzero[g] = ((av[:, sl] != 0).astype(np.float32) @ (bv[sl, :] != 0).astype(np.float32)) == 0
    st = "ue4m3" if stype == "ue4m3" else "ue8m0"
    if st == "ue4m3":  # MMA-Sim drops the sign bit of e4m3 scale factors
        sfa, sfb = sfa & 0x7F, sfb & 0x7F
    xa, xb = decode(sfa, st), decode(sfb, st)
    frac = 2 * xa.frac  # the scale product's significand has this many fraction bits
    per = block // G
    terms, exps = [], []
    for g in range(ngroups):
        q = g // per
        s = xa.sig[:, q:q + 1].astype(np.int64) * xb.sig[q:q + 1, :]  # (m, n)
        e = xa.exp[:, q:q + 1] + xb.exp[q:q + 1, :]
        e = np.where(allzero[g] | (s == 0), e_zero, e)
        terms.append(p4[g] * s)  # units of 2^(e - 2 - frac)
        exps.append(e)
    ec = np.where(c.sig == 0, e_zero, c.exp)
    emax = np.maximum(np.max(exps, axis=0), ec)
    total = np.zeros((m, n), np.int64)
    for t, e in zip(terms, exps):
        sh = (emax - e) + (2 + frac - F)
        mag = np.abs(t)
        tr = np.where(sh >= 0, mag >> np.minimum(np.maximum(sh, 0), 62), mag << np.maximum(-sh, 0))
        total += np.where(t < 0, -tr, tr)
    sh = (emax - ec) + (c.frac - F)
    cs = c.sig.astype(np.int64)
    tc = np.where(sh >= 0, cs >> np.minimum(np.maximum(sh, 0), 62), cs << np.maximum(-sh, 0))
    total += np.where(c.neg, -tc, tc)
    bits = _round(total, emax.astype(np.int32), F, "RZ-FP32")
    nan = xa.nan.any(axis=1)[:, None] | xb.nan.any(axis=0)[None, :] | c.nan
    if nan.any() or c.inf.any():
        bits = _finish(bits, nan, c.inf & ~c.neg & ~nan, c.inf & c.neg & ~nan, "f32")
    return bits
