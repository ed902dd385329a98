"""wgmma on tile-sim: the sm_90 descriptor and fragment maps against literal tables of the PTX ISA,
D bit for bit against MMA-Sim's Hopper model called directly on the logical matrices, exact s8/u8,
float kinds within an error bound of an exact reference, and the async rules (fence, in-flight
accumulators, wait_group)."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx
from tile_mlir.sim.handlers.wgmma import a_fragment, d_fragment
from tile_mlir.sim.smem_desc import check_for_mma, decode_sm90

from ptxgen import ptxas_check
from wgmma_cases import cases, config, d_matrix, ptx_of, run, to_float
from lazy_import import Lazy

mmasim = Lazy("mmasim.nv_ptx")  # (imported by the first test that uses it: lazy_import.py)
torch = Lazy("torch")


# ------------------------------------------------------------------------------- literal tables
# PTX ISA "Matrix Descriptor Format" (wgmma): start [0,14), LBO [16,30), SBO [32,46), base offset
# [49,52), swizzle [62,64) 0 none / 1 128B / 2 64B / 3 32B.  Values written out, not computed.
@pytest.mark.parametrize("raw, start, lbo, sbo, swizzle", [
    (0x0000_0000_0000_0000, 0x0, 0, 0, 0),
    (0x4000_0040_0001_0040, 0x400, 16, 1024, 2),  # 128B: code 1 -> mode 2
    (0x8000_0020_0001_0000, 0x0, 16, 512, 4),  # 64B: code 2 -> mode 4
    (0xC000_0010_0001_3FFF, 0x3FFF0, 16, 256, 6),  # 32B: code 3 -> mode 6
    (0x0000_0010_0008_0010, 0x100, 128, 256, 0),
])
def test_sm90_descriptor_fields(raw, start, lbo, sbo, swizzle):
    d = decode_sm90(raw)
    assert (d.start, d.lbo, d.sbo, d.swizzle, d.base_offset, d.reserved) == \
        (start, lbo, sbo, swizzle, 0, 0)
    assert check_for_mma(d) == []


@pytest.mark.parametrize("raw, why", [
    (1 << 46, "bit 46"), (1 << 49, "base offset"), (1 << 14, "unused bits"),
])
def test_sm90_descriptor_refusals(raw, why):
    assert why in "; ".join(check_for_mma(decode_sm90(raw)))


# PTX ISA wgmma "Register Fragments", matrix D (m64nNk*): (thread, value) -> (row, column)
D_TABLE = [((0, 0), (0, 0)), ((0, 1), (0, 1)), ((0, 2), (8, 0)), ((0, 3), (8, 1)),
           ((0, 4), (0, 8)), ((1, 0), (0, 2)), ((3, 1), (0, 7)), ((4, 0), (1, 0)),
           ((31, 3), (15, 7)), ((32, 0), (16, 0)), ((127, 7), (63, 15)), ((127, 127), (63, 255))]


@pytest.mark.parametrize("tv, rc", D_TABLE)
def test_d_fragment_table(tv, rc):
    rows, cols = d_fragment(256)
    assert (rows[tv], cols[tv]) == rc


# matrix A from registers: (thread, value) -> (row, k); f16 a0..a7, tf32 a0..a3, 8-bit a0..a15
A_TABLE = {"f16": [((0, 0), (0, 0)), ((0, 1), (0, 1)), ((0, 2), (8, 0)), ((0, 4), (0, 8)),
                   ((0, 7), (8, 9)), ((5, 0), (1, 2)), ((127, 7), (63, 15))],
           "tf32": [((0, 0), (0, 0)), ((0, 1), (8, 0)), ((0, 2), (0, 4)), ((3, 3), (8, 7)),
                    ((33, 0), (16, 1))],
           "e4m3": [((0, 0), (0, 0)), ((0, 3), (0, 3)), ((0, 4), (8, 0)), ((0, 8), (0, 16)),
                    ((1, 0), (0, 4)), ((127, 15), (63, 31))]}


@pytest.mark.parametrize("atype", sorted(A_TABLE))
def test_a_fragment_table(atype):
    rows, ks = a_fragment(atype)
    for tv, rk in A_TABLE[atype]:
        assert (rows[tv], ks[tv]) == rk


def test_fragments_are_bijective():
    rows, cols = d_fragment(64)
    assert len(set(zip(rows.ravel(), cols.ravel()))) == 64 * 64
    for atype, k in (("f16", 16), ("tf32", 8), ("e4m3", 32)):
        rows, ks = a_fragment(atype)
        assert len(set(zip(rows.ravel(), ks.ravel()))) == 64 * k


# ------------------------------------------------------------------------------- numerics
def _direct_mmasim(cfg, inst, flip_a=False):
    """D from MMA-Sim's Hopper model on the logical matrices, bypassing tile-sim entirely
    (``flip_a``: A with its signs flipped, the negation a wgmma with imm-scale-a = -1 asks for)."""
    a, b, c, _ = cases.logical(cfg, inst)
    if flip_a:
        a = a ^ {"f16": 0x8000, "bf16": 0x8000, "tf32": 0x8000_0000}.get(cfg["atype"], 0x80)
    k = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32}[cfg["atype"]]
    op = mmasim.WGMMA("Hopper", f"m64n{cfg['n']}k{k}.{cfg['dtype']}.{cfg['atype']}."
                      f"{cfg['btype']}")
    def t(bits, fmt):
        if fmt in ("f32", "tf32"):
            return torch.from_numpy(bits.astype(np.uint32).view(np.int32)).view(torch.float32)
        if fmt in ("f16", "bf16"):
            x = torch.from_numpy(bits.astype(np.uint16).view(np.int16))
            return x.view(torch.float16 if fmt == "f16" else torch.bfloat16)
        x = torch.from_numpy(bits.astype(np.uint8))
        return x.view(torch.float8_e4m3fn if fmt == "e4m3" else torch.float8_e5m2)
    cm = d_matrix(c, cfg["n"], cfg["dtype"]) if cfg["scale_d"] else \
        np.zeros((64, cfg["n"]), np.uint32)
    d = op(t(a, cfg["atype"]), t(b.T.copy(), cfg["btype"]), t(cm, cfg["dtype"]))
    return d.view(torch.int32 if cfg["dtype"] == "f32" else torch.int16).numpy().astype(
        np.uint32) & (0xFFFFFFFF if cfg["dtype"] == "f32" else 0xFFFF)


FLOAT_CASES = [
    dict(atype="f16", dtype="f32", n=16),
    dict(atype="f16", dtype="f16", n=24, scale_d=1, a={"major": "MN", "swizzle": 64}),
    dict(atype="bf16", dtype="f32", n=64, scale_d=1, b={"major": "MN", "swizzle": 0, "arr": "mn"}),
    dict(atype="tf32", dtype="f32", n=8, scale_d=1, a={"swizzle": 32}, b={"swizzle": 0}),
    dict(atype="e4m3", btype="e5m2", dtype="f32", n=32, a={"koff": 64}),
    dict(atype="e5m2", dtype="f16", n=8, scale_d=1, b={"swizzle": 64, "koff": 32}),
    dict(atype="f16", dtype="f32", n=32, a={"src": "regs", "swizzle": 0}, neg_a=1),
    dict(atype="e4m3", dtype="f32", n=16, a={"src": "regs", "swizzle": 0}, neg_b=1),
]


@pytest.mark.parametrize("kw", FLOAT_CASES, ids=lambda kw: f"{kw['atype']}-{kw['dtype']}-n{kw['n']}")
def test_float_kinds_bit_for_bit_with_mmasim(kw):
    cfg = config(**kw, modes=("normal", "special", "cancel"))
    ptxas_check(ptx_of(cfg), "sm_90a")
    out, _ = run(cfg)
    for inst in range(3):
        got = d_matrix(out[inst], cfg["n"], cfg["dtype"])
        if not cfg["neg_b"]:  # (negated A: flipped signs; negated B is the bound check's)
            want = _direct_mmasim(cfg, inst, flip_a=bool(cfg["neg_a"]))
            assert np.array_equal(got, want), f"instance {inst} differs from MMA-Sim"
        if cfg["modes"][inst] == "normal":  # within the bound of an exact reference
            a, b, c, _ = cases.logical(cfg, inst)
            A, B = to_float(a, cfg["atype"]), to_float(b, cfg["btype"])
            A, B = (-A if cfg["neg_a"] else A), (-B if cfg["neg_b"] else B)
            C = to_float(d_matrix(c, cfg["n"], cfg["dtype"]), cfg["dtype"]) * cfg["scale_d"]
            exact = A @ B.T + C
            big = np.maximum(np.max(np.abs(A[:, None, :] * B[None, :, :]), axis=-1), np.abs(C))
            # bound of the fused dot product (PTX leaves it open; this is the classical one):
            # each of the K+1 terms aligned to the largest loses < 2^-F of it (F = 13 for fp8
            # inputs, PTX 9.2: "lower than single precision"; else >= 23), then one rounding
            # to the D format (2^-10 for f16, 2^-13 / 2^-23 for f32)
            fbits = 13 if cfg["atype"] in ("e4m3", "e5m2") else 23
            obits = 10 if cfg["dtype"] == "f16" else fbits
            k = A.shape[1]
            err = np.abs(to_float(got, cfg["dtype"]) - exact)
            assert (err <= (k + 1) * big * 2.0 ** -fbits + np.abs(exact) * 2.0 ** -obits).all()


def test_negation_is_mmasim_on_negated_inputs():
    cfg = config(atype="bf16", n=16, neg_a=1, modes=("normal",))
    out, _ = run(cfg)
    assert np.array_equal(d_matrix(out[0], 16, "f32"), _direct_mmasim(cfg, 0, flip_a=True))


@pytest.mark.parametrize("atype, btype, sat", [("s8", "s8", 0), ("u8", "s8", 1), ("s8", "u8", 0),
                                               ("u8", "u8", 1)])
def test_integer_kinds_exact(atype, btype, sat):
    cfg = config(atype=atype, btype=btype, dtype="s32", n=32, scale_d=1, satfinite=sat,
                 modes=("raw", "special"), b={"swizzle": 0, "arr": "mn"})
    ptxas_check(ptx_of(cfg), "sm_90a")
    out, _ = run(cfg)
    for inst in range(2):
        a, b, c, _ = cases.logical(cfg, inst)
        sa = lambda x, t: np.where(x >= 128, x.astype(np.int64) - 256, x) if t == "s8" else \
            x.astype(np.int64)
        cm = d_matrix(c, 32, "s32").view(np.int32).astype(np.int64)
        d = sa(a, atype) @ sa(b, btype).T + cm
        d = np.clip(d, -2**31, 2**31 - 1) if sat else d
        assert np.array_equal(d_matrix(out[inst], 32, "s32"), (d & 0xFFFFFFFF).astype(np.uint32))


# ------------------------------------------------------------------------------- async rules
def _edit(ptx, old, new):
    assert old in ptx
    return ptx.replace(old, new, 1)


def test_reading_accumulator_in_flight_is_an_error():
    cfg = config(n=8)
    ptx = _edit(ptx_of(cfg), "\twgmma.wait_group.sync.aligned 0;",
                "\tadd.f32 %d1, %d0, %d0;\n\twgmma.wait_group.sync.aligned 0;")
    ptxas_check(ptx, "sm_90a")
    with pytest.raises(EmulationError, match="accessed before the wgmma.wait_group"):
        run(cfg, ptx)
    _, res = run(cfg, ptx, strict=False)
    assert any("accessed before" in w for w in res.warnings)


def test_wait_group_keeps_the_newest_groups_in_flight():
    cfg = config(n=8)
    ptx = _edit(ptx_of(cfg), "\twgmma.wait_group.sync.aligned 0;",
                "\twgmma.wait_group.sync.aligned 1;\n\tmov.b32 %r9, %d0;\n"
                "\twgmma.wait_group.sync.aligned 0;")
    with pytest.raises(EmulationError, match="accessed before"):
        run(cfg, ptx)


def test_missing_fence_is_an_error():
    cfg = config(n=8)
    ptx = _edit(ptx_of(cfg), "\twgmma.fence.sync.aligned;\n", "")
    with pytest.raises(EmulationError, match="without a prior wgmma.fence"):
        run(cfg, ptx)


def test_exit_before_wait_is_an_error():
    cfg = config(n=8)
    ptx = _edit(ptx_of(cfg), "\twgmma.wait_group.sync.aligned 0;\n", "")
    ptx = ptx[:ptx.index("\tmul.wide.u32 %rd11")] + "\tret;\n}\n"
    with pytest.raises(EmulationError, match="not completed by wgmma.wait_group"):
        run(cfg, ptx)


def test_unfenced_generic_stores_are_an_error():
    cfg = config(n=8)
    ptx = _edit(ptx_of(cfg), "\tfence.proxy.async.shared::cta;\n", "")
    with pytest.raises(EmulationError, match="fence.proxy.async"):
        run(cfg, ptx)


def test_tcgen05_descriptor_form_is_refused():
    cfg = config(n=8)
    ptx = ptx_of(cfg).replace("\twgmma.fence.sync.aligned;",
                              "\tor.b64 %rd10, %rd10, 70368744177664;\n\twgmma.fence.sync.aligned;")
    with pytest.raises(EmulationError, match="bit 46"):
        run(cfg, ptx)


@pytest.mark.parametrize("qual, why", [
    ("m64n8k16.f32.f16.f16", None),
    ("m64n12k16.f32.f16.f16", "invalid for .f16"),
    ("m64n8k16.s32.f16.f16", "accumulators are invalid"),
    ("m64n8k16.f32.f16.bf16", "not a wgmma type combination"),
    ("m64n8k16.satfinite.f32.f16.f16", "only for integer"),
])
def test_decoder_refusals(qual, why):
    cfg = config(n=8)
    ptx = ptx_of(cfg).replace("m64n8k16.f32.f16.f16", qual)
    if why is None:
        run(cfg, ptx)
    else:
        with pytest.raises(EmulationError, match=why):
            run(cfg, ptx)


def test_a_partial_warpgroup_is_an_error():
    cfg = config(n=8)
    ptx = ptx_of(cfg).replace("add.u32 %r4, %r4, 128;", "add.u32 %r4, %r4, 64;")
    inp = cases.inputs(cfg, 0)
    with pytest.raises(EmulationError, match="whole warpgroup"):
        run_ptx(ptx, "k", [inp, np.zeros(128 * 4, np.uint32)], block=(64, 1, 1))


def test_chained_wgmmas_accumulate_in_issue_order():
    """Two wgmmas on the same accumulators in one group (a K-loop's shape): the second takes the
    first's pending D as its C, as PTX orders same-accumulator wgmmas."""
    cfg = config(atype="f16", n=16, scale_d=1, modes=("normal",))
    ptx = ptx_of(cfg)
    line = next(ln for ln in ptx.split("\n") if "wgmma.mma_async" in ln)
    ptx = ptx.replace(line, line + "\n" + line.replace("%p2", "1"), 1)
    ptxas_check(ptx, "sm_90a")
    out, _ = run(cfg, ptx)
    once = _direct_mmasim(cfg, 0)
    a, b, _, _ = cases.logical(cfg, 0)
    op = mmasim.WGMMA("Hopper", "m64n16k16.f32.f16.f16")
    t16 = lambda x: torch.from_numpy(x.astype(np.uint16).view(np.int16)).view(torch.float16)
    twice = op(t16(a), t16(b.T.copy()), torch.from_numpy(once.view(np.int32)).view(torch.float32))
    assert np.array_equal(d_matrix(out[0], 16, "f32"),
                          twice.view(torch.int32).numpy().view(np.uint32))


@pytest.mark.parametrize("atype, dtype", [("f16", "f32"), ("f16", "f16"), ("e4m3", "f32")])
def test_chained_wgmmas_same_in_strict_and_lenient_mode(atype, dtype):
    """Strict mode keeps one token per warp's wgmma and passes the record's D on as the next C;
    lenient mode keeps a value per register: a chain of three gives the same D both ways."""
    cfg = config(atype=atype, dtype=dtype, n=16, scale_d=1, modes=("normal",))
    ptx = ptx_of(cfg)
    line = next(ln for ln in ptx.split("\n") if "wgmma.mma_async" in ln)
    ptx = ptx.replace(line, "\n".join([line] + [line.replace("%p2", "1")] * 2), 1)
    strict, _ = run(cfg, ptx)
    lenient, res = run(cfg, ptx, strict=False)
    assert np.array_equal(strict, lenient) and not res.warnings
