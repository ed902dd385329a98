"""mma.sync of every shape and type the PTX ISA defines for sm_80 and later: the fragments from the
ISA's figures (written out here element by element, as the ISA's tables give them), the floating
arithmetic against MMA-Sim's model of the target's architecture, the integer and b1 forms against
exact numpy; each kernel assembled by ptxas for its target."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx

from lazy_import import Lazy

torch = Lazy("torch")  # (imported by the first test that uses it: lazy_import.py)
nv = Lazy("mmasim.nv_ptx")


def _a(shape, ty, g, t, i):
    """(row, col) of element a_i of lane (g, t), the ISA's "Matrix fragment for A" tables."""
    m, k = shape[0], shape[2]
    if ty in ("f16", "bf16"):
        if k == 8:
            return (g if i < 2 else g + 8), t * 2 + (i & 1)
        return (g if i in (0, 1, 4, 5) else g + 8), t * 2 + (i & 1) + (8 if i >= 4 else 0)
    if ty == "tf32":
        if k == 4:
            return (g if i == 0 else g + 8), t
        return (g if i in (0, 2) else g + 8), (t if i < 2 else t + 4)
    if ty == "f64":
        if m == 8:
            return g, t
        return g + 8 * (i % 2), t + 4 * (i // 2)
    if ty in ("s8", "u8", "e4m3", "e5m2"):
        if m == 8:
            return g, t * 4 + i
        if k == 16:
            return (g if i < 4 else g + 8), t * 4 + (i & 3)
        return (g if i < 4 or 8 <= i < 12 else g + 8), t * 4 + (i & 3) + (16 if i >= 8 else 0)
    if ty in ("s4", "u4"):
        if m == 8:
            return g, t * 8 + i
        if k == 32:
            return (g if i < 8 else g + 8), t * 8 + (i & 7)
        return (g if i < 8 or 16 <= i < 24 else g + 8), t * 8 + (i & 7) + (32 if i >= 16 else 0)
    if m == 8:  # b1
        return g, t * 32 + i
    if k == 128:
        return (g if i < 32 else g + 8), t * 32 + (i & 31)
    return (g if i < 32 or 64 <= i < 96 else g + 8), t * 32 + (i & 31) + (128 if i >= 64 else 0)


def _b(shape, ty, g, t, i):
    """(row, col) of element b_i: the ISA's "Matrix fragment for B" tables."""
    k = shape[2]
    if ty in ("f16", "bf16"):
        return t * 2 + (i & 1) + (8 if i >= 2 else 0), g
    if ty in ("tf32", "f64"):
        return t + 4 * i, g
    per = {"s8": 4, "u8": 4, "e4m3": 4, "e5m2": 4, "s4": 8, "u4": 8, "b1": 32}[ty]
    if k <= 4 * per:
        return t * per + i, g
    return t * per + (i % per) + 4 * per * (i // per), g


def _c(shape, g, t, i):
    if shape[0] == 8:
        return g, t * 2 + i
    return (g if i < 2 else g + 8), t * 2 + (i & 1)


BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f64": 64, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8,
        "s4": 4, "u4": 4, "b1": 1, "f32": 32, "s32": 32}
REG = {"f32": ".f32", "f64": ".f64", "s32": ".s32", "f16": ".b32"}


def pack(mat, fn, nel, bits):
    """(32 lanes, registers) of the fragment elements ``fn(g, t, i)`` of ``mat``, ``32 / bits``
    elements to a register, element i in bits [i·bits, ...) of its register."""
    per = max(1, 32 // bits)
    out = np.zeros((32, max(1, nel // per)), np.uint64)
    for lane in range(32):
        for i in range(nel):
            r, c = fn(lane >> 2, lane & 3, i)
            out[lane, i // per] |= np.uint64(int(mat[r, c]) & ((1 << bits) - 1)) << np.uint64(
                (i % per) * bits if per > 1 else 0)
    return out


def kernel(target, shape, dtype, atype, btype, ctype, na, nb, nc, nd, extra=""):
    m, n, k = shape
    tw = 8 if atype == "f64" else 4
    cw, dw = (8 if ctype == "f64" else 4), (8 if dtype == "f64" else 4)
    areg = ".f64" if atype == "f64" else ".b32"
    creg, dreg = REG.get(ctype, ".b32") if ctype != "f16" else ".b32", REG[dtype]
    lt = {".f64": "f64", ".b32": "b32", ".f32": "f32", ".s32": "s32"}
    lines = [f".version 8.8\n.target {target}\n.address_size 64\n",
             ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{",
             f"\t.reg .b32 %lt;\n\t.reg .b64 %rd<12>;\n\t.reg {areg} %a<{na}>;\n\t.reg {areg} %b<{nb}>;",
             f"\t.reg {creg} %c<{nc}>;\n\t.reg {dreg} %d<{nd}>;",
             "\tmov.u32 %lt, %tid.x;\n\tcvt.u64.u32 %rd9, %lt;"]
    for p, (name, cnt, w) in enumerate((("a", na, tw), ("b", nb, tw), ("c", nc, cw), ("d", nd, dw))):
        lines += [f"\tld.param.u64 %rd{p}, [p{name}];", f"\tcvta.to.global.u64 %rd{p}, %rd{p};",
                  f"\tmul.lo.u64 %rd{p + 4}, %rd9, {cnt * w};",
                  f"\tadd.u64 %rd{p}, %rd{p}, %rd{p + 4};"]
    for p, (name, cnt, reg) in enumerate((("a", na, areg), ("b", nb, areg), ("c", nc, creg))):
        w = 8 if reg == ".f64" else 4
        lines += [f"\tld.global.{lt[reg]} %{name}{i}, [%rd{p}+{i * w}];" for i in range(cnt)]
    vec = lambda x, c: "{" + ", ".join(f"%{x}{i}" for i in range(c)) + "}"  # noqa: E731
    lines.append(f"\tmma.sync.aligned.m{m}n{n}k{k}.row.col{extra}.{dtype}.{atype}.{btype}.{ctype}"
                 f" {vec('d', nd)}, {vec('a', na)}, {vec('b', nb)}, {vec('c', nc)};")
    lines += [f"\tst.global.{lt[dreg]} [%rd3+{i * dw}], %d{i};" for i in range(nd)]
    lines.append("\tret;\n}\n")
    return "\n".join(lines)


def random_bits(rng, ty, shape):
    if ty in ("f16", "bf16", "tf32", "f64"):
        x = rng.standard_normal(shape) * np.exp2(rng.integers(-6, 7, shape))
        if ty == "f16":
            return x.astype(np.float16).view(np.uint16).astype(np.uint64)
        if ty == "bf16":
            return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint64)
        if ty == "tf32":
            return (x.astype(np.float32).view(np.uint32) & 0xFFFFE000).astype(np.uint64)
        return x.view(np.uint64)
    if ty in ("e4m3", "e5m2"):
        b = rng.integers(0, 256, shape).astype(np.uint64)
        nan = (b & 0x7F) == 0x7F if ty == "e4m3" else (b & 0x7C) == 0x7C
        return np.where(nan, b & 0x80, b)  # finite inputs
    return rng.integers(0, 1 << BITS[ty], shape).astype(np.uint64)


def mmasim_ref(arch, shape, dtype, atype, btype, a, b, c):
    m, n, k = shape
    tt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
          "tf32": torch.float32, "f64": torch.float64, "e4m3": torch.float8_e4m3fn,
          "e5m2": torch.float8_e5m2}

    def tens(bits, ty):
        if ty == "bf16":
            return torch.from_numpy(bits.astype(np.uint16).view(np.int16)).view(torch.bfloat16)
        if ty == "tf32":
            return torch.from_numpy((bits.astype(np.uint32)).view(np.float32))
        if ty in ("e4m3", "e5m2"):
            return torch.from_numpy(bits.astype(np.uint8)).view(tt[ty])
        npt = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[ty]
        return torch.from_numpy(bits.astype({16: np.uint16, 32: np.uint32, 64: np.uint64}[
            np.dtype(npt).itemsize * 8]).view(npt))
    op = nv.MMA(arch, f"m{m}n{n}k{k}.{dtype}.{atype}.{btype}.{dtype}")
    d = op(tens(a, atype), tens(b, btype), tens(c, dtype)).contiguous()
    ut = {torch.float16: np.uint16, torch.float32: np.uint32, torch.float64: np.uint64}[d.dtype]
    return d.numpy().view(ut).astype(np.uint64)


def int_ref(atype, btype, a, b, c, sat, bitop=None):
    def val(x, t):
        bits = BITS[t]
        x = x.astype(np.int64)
        return np.where(x >= 1 << (bits - 1), x - (1 << bits), x) if t[0] == "s" else x
    ci = c.astype(np.int64)
    ci = np.where(ci >= 1 << 31, ci - (1 << 32), ci)
    if atype == "b1":
        av, bv = a.astype(np.int64), b.astype(np.int64)
        d = ((av[:, :, None] & bv[None]) if bitop == "and" else (av[:, :, None] ^ bv[None])).sum(1)
        d = d + ci
    else:
        d = val(a, atype) @ val(b, btype) + ci
    if sat:
        d = np.clip(d, -(1 << 31), (1 << 31) - 1)
    return (d & 0xFFFFFFFF).astype(np.uint64)


FLOAT_CASES = [  # (target, MMA-Sim arch, shape, dtype, atype, ctype)
    *[(tg, ar, s, dt, "f16", dt) for tg, ar in (("sm_80", "Ampere"), ("sm_90a", "Hopper"),
                                                 ("sm_100a", "Blackwell"))
      for s in ((16, 8, 16), (16, 8, 8)) for dt in ("f32", "f16")],
    *[(tg, ar, s, "f32", "bf16", "f32") for tg, ar in (("sm_80", "Ampere"), ("sm_90a", "Hopper"),
                                                       ("sm_100a", "Blackwell"))
      for s in ((16, 8, 16), (16, 8, 8))],
    *[(tg, ar, s, "f32", "tf32", "f32") for tg, ar in (("sm_80", "Ampere"), ("sm_100a", "Blackwell"))
      for s in ((16, 8, 8), (16, 8, 4))],
    *[("sm_89", "Ada Lovelace", s, dt, at, dt) for s in ((16, 8, 32), (16, 8, 16))
      for dt in ("f32", "f16") for at in ("e4m3", "e5m2")],
    ("sm_80", "Ampere", (8, 8, 4), "f64", "f64", "f64"),
    *[("sm_90a", "Hopper", s, "f64", "f64", "f64") for s in ((16, 8, 4), (16, 8, 8), (16, 8, 16))],
]


def _fragments(shape, atype, btype, cbits, dbits):
    m, n, k = shape
    nel_a, nel_b, nel_c = m * k // 32, k * n // 32, m * n // 32
    pa = max(1, 32 // BITS[atype])
    return (nel_a, nel_b, nel_c, max(1, nel_a // pa), max(1, nel_b // pa),
            nel_c // max(1, 32 // cbits), nel_c // max(1, 32 // dbits))


def _run(target, shape, dtype, atype, btype, ctype, a, b, c, assemble, extra=""):
    m, n, k = shape
    cb, db = BITS[ctype], BITS[dtype]
    nel_a, nel_b, nel_c, na, nb, nc, nd = _fragments(shape, atype, btype, cb, db)
    ptx = kernel(target, shape, dtype, atype, btype, ctype, na, nb, nc, nd, extra)
    assemble(ptx, target)
    ab = BITS[atype]
    fa = pack(a, lambda g, t, i: _a(shape, atype, g, t, i), nel_a, ab)
    fb = pack(b, lambda g, t, i: _b(shape, btype, g, t, i), nel_b, ab)
    fc = pack(c, lambda g, t, i: _c(shape, g, t, i), nel_c, cb)
    ty = lambda bits: np.uint64 if bits == 64 else np.uint32  # noqa: E731
    out = np.zeros((32, nd), ty(db))
    run_ptx(ptx, "k", [fa.astype(ty(64 if ab == 64 else 32)), fb.astype(ty(64 if ab == 64 else 32)),
                       fc.astype(ty(cb)), out], block=(32, 1, 1))
    return out.astype(np.uint64), nel_c, db


def _unpack_d(out, shape, nel_c, db):
    per = max(1, 32 // db)
    d = np.zeros(shape[:2], np.uint64)
    for lane in range(32):
        for i in range(nel_c):
            r, c = _c(shape, lane >> 2, lane & 3, i)
            d[r, c] = (int(out[lane, i // per]) >> ((i % per) * db if per > 1 else 0)) & (
                (1 << db) - 1)
    return d


@pytest.mark.parametrize("target,arch,shape,dtype,atype,ctype", FLOAT_CASES)
def test_float_mma_sync_is_mmasim(target, arch, shape, dtype, atype, ctype, assemble):
    m, n, k = shape
    rng = np.random.default_rng(hash((target, shape, dtype, atype)) & 0xFFFF)
    a, b = random_bits(rng, atype, (m, k)), random_bits(rng, atype, (k, n))
    c = random_bits(rng, "f16" if dtype == "f16" else ("f64" if dtype == "f64" else "tf32"), (m, n))
    out, nel_c, db = _run(target, shape, dtype, atype, atype, ctype, a, b, c, assemble)
    want = mmasim_ref(arch, shape, dtype, atype, atype, a, b, c)
    got = _unpack_d(out, shape, nel_c, db)
    np.testing.assert_array_equal(got, want)
    assert (got != c).any()  # a result, not C passed through


INT_CASES = [(s, at, bt, sat) for s in ((16, 8, 32), (16, 8, 16), (8, 8, 16))
             for at, bt in (("s8", "s8"), ("u8", "s8"), ("u8", "u8")) for sat in (False, True)] + \
            [(s, at, bt, sat) for s in ((16, 8, 64), (16, 8, 32), (8, 8, 32))
             for at, bt in (("s4", "u4"), ("u4", "u4")) for sat in (False, True)]


@pytest.mark.parametrize("shape,atype,btype,sat", INT_CASES)
def test_integer_mma_sync_is_exact(shape, atype, btype, sat, assemble):
    m, n, k = shape
    rng = np.random.default_rng(k + m + sat)
    a, b = random_bits(rng, atype, (m, k)), random_bits(rng, btype, (k, n))
    c = rng.integers(0, 1 << 32, (m, n)).astype(np.uint64)
    c[0, 0], c[1, 1] = 0x7FFFFFF0, 0x80000005  # near the s32 range: .satfinite clamps, else wraps
    out, nel_c, db = _run("sm_80", shape, "s32", atype, btype, "s32", a, b, c, assemble,
                          ".satfinite" if sat else "")
    np.testing.assert_array_equal(_unpack_d(out, shape, nel_c, db),
                                  int_ref(atype, btype, a, b, c, sat))


@pytest.mark.parametrize("shape", [(8, 8, 128), (16, 8, 128), (16, 8, 256)])
@pytest.mark.parametrize("bitop", ["xor", "and"])
def test_b1_mma_sync_counts_bits(shape, bitop, assemble):
    m, n, k = shape
    rng = np.random.default_rng(k + m)
    a, b = random_bits(rng, "b1", (m, k)), random_bits(rng, "b1", (k, n))
    c = rng.integers(0, 1000, (m, n)).astype(np.uint64)
    ptx_extra = f".{bitop}.popc"
    nel_a, nel_b, nel_c, na, nb, nc, nd = _fragments(shape, "b1", "b1", 32, 32)
    ptx = kernel("sm_80", shape, "s32", "b1", "b1", "s32", na, nb, nc, nd).replace(
        ".s32.b1.b1.s32", ".s32.b1.b1.s32" + ptx_extra)
    assemble(ptx, "sm_80")
    fa = pack(a, lambda g, t, i: _a(shape, "b1", g, t, i), nel_a, 1)
    fb = pack(b, lambda g, t, i: _b(shape, "b1", g, t, i), nel_b, 1)
    fc = pack(c, lambda g, t, i: _c(shape, g, t, i), nel_c, 32)
    out = np.zeros((32, nd), np.uint32)
    run_ptx(ptx, "k", [fa.astype(np.uint32), fb.astype(np.uint32), fc.astype(np.uint32), out],
            block=(32, 1, 1))
    np.testing.assert_array_equal(_unpack_d(out.astype(np.uint64), shape, nel_c, 32),
                                  int_ref("b1", "b1", a, b, c, False, bitop))


@pytest.mark.parametrize("form,target,why", [
    ("m16n8k32.row.col.f32.e4m3.e4m3.f32", "sm_90a", "fp8 mma.sync on Hopper"),
    ("m8n8k4.row.col.f32.f16.f16.f32", "sm_80", "quad-pair"),
    ("m16n8k16.row.col.f16.f16.f16.f32", "sm_80", "not an ISA form"),
    ("m16n8k8.row.col.f64.f64.f64.f64", "sm_80", "sm_90 or later"),
    ("m16n8k16.row.col.f32.bf16.bf16.f16", "sm_80", "not an ISA form"),
    ("m16n8k12.row.col.f32.f16.f16.f32", "sm_80", "not defined"),
])
def test_refused_forms_name_the_reason(form, target, why):
    ptx = (f".version 8.8\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n"
           "\t.reg .b32 %r<40>;\n\t.reg .f64 %fd<8>;\n"
           f"\tmma.sync.aligned.{form} {{%r0, %r1, %r2, %r3}}, {{%r4, %r5, %r6, %r7}}, "
           "{%r8, %r9}, {%r10, %r11, %r12, %r13};\n\tret;\n}\n")
    with pytest.raises(EmulationError, match=why):
        run_ptx(ptx, "k", [], block=(32, 1, 1))


def _any_bits(rng, ty, shape, specials):
    """Random bit patterns of ``ty``: every exponent (subnormals, zeros), and NaN / infinity
    only when ``specials``."""
    bits = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "e4m3": 8, "e5m2": 8}[ty]
    b = rng.integers(0, 1 << bits, shape, dtype=np.uint64)
    b[rng.random(shape) < 0.15] = 0
    if not specials:
        top = {"f16": 0x7C00, "bf16": 0x7F80, "tf32": 0x7F800000, "f32": 0x7F800000}.get(ty)
        if top is not None:
            b = np.where((b & top) == top, b & ~np.uint64(top >> 1 & top), b)
        elif ty == "e4m3":
            b = np.where((b & 0x7F) == 0x7F, b & 0x80, b)
        else:
            b = np.where((b & 0x7C) == 0x7C, b & 0x83, b)
    return b


SMALL_CASES = [("Ampere", "f16", "f32", (16, 8, 16)), ("Ampere", "f16", "f16", (16, 8, 16)),
               ("Hopper", "bf16", "f32", (16, 8, 16)), ("Blackwell", "tf32", "f32", (16, 8, 8)),
               ("Ada Lovelace", "e4m3", "f32", (16, 8, 32)), ("Ada Lovelace", "e5m2", "f16", (16, 8, 32))]


@pytest.mark.parametrize("arch,atype,dtype,shape", SMALL_CASES)
def test_every_exponent_is_mmasim(arch, atype, dtype, shape):
    """mma.sync's arithmetic (mma_numerics.mma_sync, its float64 small-tile path) equals MMA-Sim
    over random bit patterns of every exponent, subnormals and zeros included."""
    from tile_mlir.sim import mma_numerics
    m, n, k = shape
    rng = np.random.default_rng(len(atype) + k)
    for _ in range(20):
        a, b = _any_bits(rng, atype, (m, k), False), _any_bits(rng, atype, (k, n), False)
        c = _any_bits(rng, "f16" if dtype == "f16" else "f32", (m, n), False)
        got = mma_numerics.mma_sync(arch, dtype, atype, atype, a, b, c.astype(np.uint32))
        np.testing.assert_array_equal(got.astype(np.uint64),
                                      mmasim_ref(arch, shape, dtype, atype, atype, a, b, c))


@pytest.mark.parametrize("arch,atype,dtype,shape", SMALL_CASES)
def test_small_tile_path_is_mma_fast_with_specials(arch, atype, dtype, shape):
    """The float64 path hands NaN, infinities and overflowing groups to mma_fast.t_fdpa: the same
    bits as mma_fast on inputs with every special value."""
    from tile_mlir.sim import mma_fast, mma_small
    from tile_mlir.sim.mma_numerics import _ITEM, _MMA_SYNC_PARAMS
    m, n, k = shape
    F, lb, ez16, ez32 = _MMA_SYNC_PARAMS[arch]
    rho = "RNE-FP16" if dtype == "f16" else "RZ-FP32"
    if atype in ("e4m3", "e5m2"):
        F, rho = 13, ("RNE-FP16" if dtype == "f16" else "RZ-E8M13")
    kw = dict(F=F, rho=rho, e_zero=ez16 if dtype == "f16" else ez32, L=lb // _ITEM[atype])
    rng = np.random.default_rng(k)
    for _ in range(20):
        a, b = _any_bits(rng, atype, (m, k), True), _any_bits(rng, atype, (k, n), True)
        c = _any_bits(rng, "f16" if dtype == "f16" else "f32", (m, n), True).astype(np.uint32)
        np.testing.assert_array_equal(mma_small.t_fdpa(a, b, c, atype, atype, dtype, **kw),
                                      mma_fast.t_fdpa(a, b, c, atype, atype, dtype, **kw))
