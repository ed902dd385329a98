"""tcgen05.mma on tile-sim: instruction-descriptor bits and D layouts against literal tables of the
PTX ISA; every kind end to end (tcgen05.st -> mma -> commit -> mbarrier wait -> tcgen05.ld), D bit
for bit against MMA-Sim's Blackwell model called directly on the logical matrices (i8 exact), float
kinds within an error bound of an exact reference; cta_group::2, A in tensor memory, block scaling,
disable-output-lane, scale-input-d and the async rules."""

import ml_dtypes
import numpy as np
import pytest

from tile_mlir.sim import EmulationError
from tile_mlir.sim.handlers.tcgen05_mma import d_lanes, shape_error
from tile_mlir.sim.smem_desc import decode_idesc

from ptxgen import ptxas_check
from tcgen05_mma_cases import Case, d_position
from lazy_import import Lazy

mmasim = Lazy("mmasim.nv_ptx")  # (imported by the first test that uses it: lazy_import.py)
torch = Lazy("torch")


# ------------------------------------------------------------------------------- literal tables
# worked descriptors (docs/gemm.md §2, computed from the PTX ISA's Tables 42-44)
def test_idesc_worked_values():
    d = decode_idesc(0x08400490, "f16")  # bf16 x bf16 -> f32, K-major, M = 128, N = 256
    assert (d.dtype, d.atype, d.btype, d.m, d.n, d.transpose_a, d.reserved) == \
        (1, 1, 1, 128, 256, 0, 0)
    d = decode_idesc(0x08400480, "mxf4nvf4")  # e2m1, UE4M3, M = 128, N = 256
    assert (d.atype, d.btype, d.scale_type, d.m, d.n, d.sfa_id, d.sfb_id, d.reserved) == \
        (1, 1, 0, 128, 256, 0, 0, 0)
    d = decode_idesc(0x08C00000, "mxf8f6f4")  # e4m3, UE8M0, M = 128, N = 256
    assert (d.atype, d.scale_type, d.m, d.n, d.reserved) == (0, 1, 128, 256, 0)
    # Table 43: SFB ID bits 4-5, SFA ID bits 29-30; Table 42: saturate bit 3, M>>4 at 24
    d = decode_idesc(0x6000_0030, "mxf8f6f4")
    assert (d.sfb_id, d.sfa_id) == (3, 3)
    d = decode_idesc(0x0400_0028, "i8")
    assert (d.saturate, d.dtype, d.m) == (1, 2, 64)
    assert decode_idesc(1 << 26, "mxf4").reserved  # PTX reserves bit 26 (CUTLASS's M>>4 at 24)


@pytest.mark.parametrize("kind, cg, m, n, ok", [
    ("f16", 1, 64, 8, True), ("f16", 1, 128, 256, True), ("f16", 1, 256, 64, False),
    ("f16", 2, 128, 8, False), ("f16", 2, 256, 16, True), ("i8", 1, 128, 24, True),
    ("i8", 1, 128, 40, False), ("i8", 2, 256, 48, False), ("mxf4", 1, 64, 64, False),
    ("mxf8f6f4", 1, 128, 8, True), ("tf32", 1, 128, 264, False),
])
def test_shapes(kind, cg, m, n, ok):
    assert (shape_error(kind, cg, m, n, False) is None) == ok


def test_d_layout_tables():
    L, C = d_lanes(64, 1, 8, 16)  # layout F from lane 16: rows 16.. in the next quarter
    assert (L[0, 0], L[15, 3], L[16, 0], L[63, 7], C[63, 7]) == (16, 31, 48, 127, 7)
    L, C = d_lanes(128, 2, 64, 0)  # layout B: N halves in lanes 0-63 / 64-127
    assert (L[5, 3], C[5, 3], L[5, 35], C[5, 35]) == (5, 3, 69, 3)
    L, C = d_lanes(256, 2, 16, 0)  # layout A: 128 rows per CTA
    assert (L[127, 15], C[127, 15]) == (127, 15)


# ------------------------------------------------------------------------------- numerics
def _t(bits, fmt):
    if fmt in ("f32", "tf32"):
        return torch.from_numpy(bits.astype(np.uint32).view(np.int32)).view(torch.float32)
    if fmt in ("f16", "bf16"):
        x = torch.from_numpy(bits.astype(np.uint16).view(np.int16))
        return x.view(torch.float16 if fmt == "f16" else torch.bfloat16)
    x = torch.from_numpy(bits.astype(np.uint8))
    return {"e4m3": x.view(torch.float8_e4m3fn), "e5m2": x.view(torch.float8_e5m2)}.get(fmt, x)


def _mmasim(c: Case, r: int):
    """The CTA's D straight from MMA-Sim on the logical matrices."""
    rows = c.rows
    a = c.a[r * rows:(r + 1) * rows]
    cin = c.c_full[r * rows:(r + 1) * rows] if c.enable else np.zeros((rows, c.n), np.uint32)
    if c.dtype == "f16":
        cin = cin & 0xFFFF
    at = "e2m1" if c.atype == "e2m1x2" else c.atype
    if c.nsf is None:
        op = mmasim.TCGen05MMA("Blackwell", f"m{rows}n{c.n}k{c.K}.kind::{c.kind}.{c.dtype}.{at}."
                               f"{'e2m1' if c.btype == 'e2m1x2' else c.btype}")
        d = op(_t(a, c.atype), _t(c.b.T.copy(), c.btype), _t(cin, c.dtype))
    else:
        block = c.K // c.nsf
        op = mmasim.TCGen05MMABlockScale(
            "Blackwell", f"m128n{c.n}k{c.K}.kind::{c.kind}.block{block}.f32.{at}.{at}."
                         f"{'ue8m0' if c.ue8m0 else 'ue4m3'}")
        if c.atype == "e2m1x2":  # MMA-Sim's packing: element 2i in the high nibble
            pk = lambda x: ((x[:, 0::2] << 4) | x[:, 1::2]).astype(np.uint8)
            ta, tb = torch.from_numpy(pk(a)), torch.from_numpy(pk(c.b).T.copy())
        else:
            ta, tb = _t(a, c.atype), _t(c.b.T.copy(), c.btype)
        sv = torch.float8_e8m0fnu if c.ue8m0 else torch.float8_e4m3fn
        sa = torch.from_numpy(c.sfa[r * rows:(r + 1) * rows].astype(np.uint8)).view(sv)
        sb = torch.from_numpy(c.sfb.T.copy().astype(np.uint8)).view(sv)
        d = op(ta, tb, _t(cin, "f32"), sa, sb)
    if c.dtype == "f32":
        return d.view(torch.int32).numpy().view(np.uint32)
    return d.view(torch.int16).numpy().view(np.uint16).astype(np.uint32)


DENSE = [
    dict(kind="f16", atype="bf16", dtype="f32", m=128, n=32),
    dict(kind="f16", atype="f16", dtype="f16", m=64, n=16, a_sw=32, b_sw=0, lane0=16),
    dict(kind="f16", atype="f16", dtype="f32", m=128, n=16, a_major="MN", b_major="MN", a_sw=64,
         b_sw=0, mode="special"),
    dict(kind="tf32", atype="tf32", dtype="f32", m=128, n=8, a_sw=0, b_sw=32, mode="cancel"),
    dict(kind="f8f6f4", atype="e4m3", btype="e5m2", dtype="f32", m=128, n=16),
    dict(kind="f8f6f4", atype="e2m1", dtype="f32", m=64, n=8, b_sw=64),
    dict(kind="f8f6f4", atype="e3m2", dtype="f16", m=128, n=8),
    dict(kind="f8f6f4", atype="e2m3", dtype="f32", m=128, n=16, enable=0),
]


def _ids(kw):
    return "-".join(str(kw[k]) for k in ("kind", "atype", "dtype", "m", "n"))


@pytest.mark.parametrize("kw", DENSE, ids=_ids)
def test_dense_float_kinds_bit_for_bit_with_mmasim(kw):
    c = Case(**kw)
    ptxas_check(c.ptx, "sm_100a")
    out, _ = c.run()
    assert np.array_equal(c.d_of(out, 0), _mmasim(c, 0))
    others = np.ones((128, c.nc), bool)  # cells outside D keep their initial values
    for mm in range(c.rows):
        for nn in range(c.n):
            others[d_position(c.m, 1, c.n, mm, nn, c.lane0)] = False
    assert np.array_equal(out[0][others], c.tmem_images[0][others])


def _float(bits, fmt):
    if fmt == "f32":
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    return bits.astype(np.uint16).view(np.float16).astype(np.float64)


def test_float_error_bound_against_exact():
    c = Case(kind="f16", atype="bf16", dtype="f32", m=128, n=32, seed=5)
    out, _ = c.run()
    A = c.a.astype(np.uint16).view(ml_dtypes.bfloat16).astype(np.float64)
    B = c.b.astype(np.uint16).view(ml_dtypes.bfloat16).astype(np.float64)
    C = _float(c.c_full, "f32")
    exact = A @ B.T + C
    big = np.maximum(np.max(np.abs(A[:, None, :] * B[None, :, :]), -1), np.abs(C))
    err = np.abs(_float(c.d_of(out, 0), "f32") - exact)
    assert (err <= (c.K + 1) * big * 2.0 ** -23 + np.abs(exact) * 2.0 ** -23).all()


@pytest.mark.parametrize("atype, btype, sat", [("s8", "s8", 0), ("u8", "s8", 1)])
def test_i8_exact(atype, btype, sat):
    c = Case(kind="i8", atype=atype, btype=btype, dtype="s32", m=128, n=16, sat=sat,
             mode="special")
    ptxas_check(c.ptx, "sm_100a")
    out, _ = c.run()
    v = lambda x, t: np.where(x >= 128, x.astype(np.int64) - 256, x) if t == "s8" else \
        x.astype(np.int64)
    d = v(c.a, atype) @ v(c.b, btype).T + c.c_full.view(np.int32).astype(np.int64)
    d = np.clip(d, -2**31, 2**31 - 1) if sat else d
    assert np.array_equal(c.d_of(out, 0), (d & 0xFFFFFFFF).astype(np.uint32))


BLOCK = [
    dict(kind="mxf8f6f4", atype="e4m3", dtype="f32", m=128, n=16, nsf=1, sf_id=2),
    dict(kind="mxf8f6f4", atype="e2m1", dtype="f32", m=128, n=8, nsf=1),
    dict(kind="mxf4", atype="e2m1x2", dtype="f32", m=128, n=16, nsf=2, b_sw=32),
    dict(kind="mxf4nvf4", atype="e2m1x2", dtype="f32", m=128, n=16, nsf=4, ue8m0=0),
    dict(kind="mxf4nvf4", atype="e2m1x2", dtype="f32", m=128, n=8, nsf=2, sf_id=2),
]


@pytest.mark.parametrize("kw", BLOCK, ids=lambda kw: f"{kw['kind']}-{kw['atype']}-x{kw['nsf']}")
def test_block_scaled_kinds_bit_for_bit_with_mmasim(kw):
    c = Case(**kw)
    ptxas_check(c.ptx, "sm_100a")
    out, _ = c.run()
    assert np.array_equal(c.d_of(out, 0), _mmasim(c, 0))


def test_scale_factors_through_tcgen05_cp():
    """The block-scaled pipeline as CUTLASS issues it: tcgen05.cp of the 128 x 4 scale-factor
    atoms, then the MMA, then one commit (the cp lands first, in issue order)."""
    c = Case(kind="mxf8f6f4", atype="e4m3", dtype="f32", m=128, n=32, nsf=1, sf_id=1, sf_cp=True)
    ptxas_check(c.ptx, "sm_100a")
    out, _ = c.run()
    assert np.array_equal(c.d_of(out, 0), _mmasim(c, 0))


@pytest.mark.parametrize("m, n", [(128, 32), (256, 16)])
def test_cta_group_2(m, n):
    c = Case(kind="f16", atype="f16", dtype="f32", m=m, n=n, cg=2)
    ptxas_check(c.ptx, "sm_100a")
    out, _ = c.run()
    for r in range(2):
        assert np.array_equal(c.d_of(out, r), _mmasim(c, r)), f"CTA {r}"


def test_cta_group_2_block_scaled():
    c = Case(kind="mxf8f6f4", atype="e5m2", dtype="f32", m=256, n=32, cg=2, nsf=1)
    out, _ = c.run()
    for r in range(2):
        assert np.array_equal(c.d_of(out, r), _mmasim(c, r))


@pytest.mark.parametrize("kind, atype, k_bits", [("f16", "f16", 16), ("tf32", "tf32", 32),
                                                 ("f8f6f4", "e4m3", 8)])
def test_a_from_tensor_memory(kind, atype, k_bits):
    c = Case(kind=kind, atype=atype, dtype="f32", m=128, n=16, a_tmem=True)
    ptxas_check(c.ptx, "sm_100a")
    out, _ = c.run()
    assert np.array_equal(c.d_of(out, 0), _mmasim(c, 0))


def test_disable_output_lane_keeps_lanes():
    mask = [0x0000_00FF, 0, 0x8000_0000, 0]
    c = Case(kind="f16", atype="f16", dtype="f32", m=128, n=8, mask=mask)
    ptxas_check(c.ptx, "sm_100a")
    out, _ = c.run()
    want = _mmasim(c, 0)
    off = np.array([(mask[L // 32] >> (L % 32)) & 1 for L in range(128)], bool)
    got = c.d_of(out, 0)
    assert np.array_equal(got[~off], want[~off])
    assert np.array_equal(got[off], c.c_full[off])


def test_scale_input_d():
    c = Case(kind="f16", atype="f16", dtype="f32", m=128, n=8, scale_d=3)
    ptxas_check(c.ptx, "sm_100a")
    out, _ = c.run()
    scaled = (c.c_full.view(np.float32) * np.float32(0.125)).view(np.uint32)
    c.c_full, keep = scaled, c.c_full
    try:
        want = _mmasim(c, 0)
    finally:
        c.c_full = keep
    assert np.array_equal(c.d_of(out, 0), want)


# ------------------------------------------------------------------------------- async rules
def test_ld_before_the_commit_wait_is_an_error():
    c = Case(kind="f16", atype="f16", dtype="f32", m=128, n=8)
    ptx = c.ptx.replace("\tmbarrier.try_wait.parity.shared::cta.b64 %p6, [%r11], 0;\n"
                        "\t@!%p6 bra WAIT;\n", "")
    assert ptx != c.ptx
    with pytest.raises(EmulationError, match="without a successful mbarrier wait"):
        c.run(ptx)


def _accumulator_full_barrier(ptx, *, after_mma):
    """The CUTLASS pattern: the MMA's commit arrives on a stage's empty barrier (``mbar``, which
    nobody waits on here), then one more commit arrives on an accumulator-full barrier ``mbar2``
    that the epilogue waits on; ``after_mma=False`` issues that commit before the MMA instead."""
    commit = "\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r11];\n"
    full = ("\tmov.u32 %r20, mbar2;\n"
            "\ttcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r20];\n")
    mma = next(x for x in ptx.splitlines(keepends=True) if "tcgen05.mma" in x)
    edits = [("\t.shared .align 8 .b64 mbar;\n",
              "\t.shared .align 8 .b64 mbar;\n\t.shared .align 8 .b64 mbar2;\n"),
             ("\tmbarrier.init.shared::cta.b64 [%r11], 1;\n",
              "\tmbarrier.init.shared::cta.b64 [%r11], 1;\n\tmov.u32 %r20, mbar2;\n"
              "\tmbarrier.init.shared::cta.b64 [%r20], 1;\n"),
             ("ISSUED:\n\tmov.u32 %r11, mbar;\n", "ISSUED:\n\tmov.u32 %r11, mbar2;\n"),
             (commit, commit + full) if after_mma else (mma, full + mma)]
    for old, new in edits:
        assert ptx.count(old) == 1, old
        ptx = ptx.replace(old, new)
    return ptx


def test_a_later_commit_covers_an_already_committed_mma():
    """PTX ISA tcgen05.commit: the mbarrier tracks all prior async tcgen05 operations of the
    thread, so waiting on the second commit's barrier alone makes D readable."""
    c = Case(kind="f16", atype="f16", dtype="f32", m=128, n=8)
    out, _ = c.run(_accumulator_full_barrier(c.ptx, after_mma=True))
    assert np.array_equal(c.d_of(out, 0), _mmasim(c, 0))


def test_a_commit_before_the_mma_does_not_cover_it():
    c = Case(kind="f16", atype="f16", dtype="f32", m=128, n=8)
    with pytest.raises(EmulationError, match="written by the tcgen05.mma at line .* without a "
                                             "successful mbarrier wait"):
        c.run(_accumulator_full_barrier(c.ptx, after_mma=False))


def test_store_into_an_operand_before_completion_is_a_race():
    c = Case(kind="f16", atype="f16", dtype="f32", m=128, n=8)
    ptx = c.ptx.replace("\ttcgen05.commit", "\tst.shared.u32 [%r3], %r1;\n\ttcgen05.commit")
    with pytest.raises(EmulationError, match="write-after-read race.*tcgen05.mma issued at line"):
        c.run(ptx)


@pytest.mark.parametrize("edit, why", [
    (("kind::f16 ", "kind::f16.ws "), "not emulated"),
    (("kind::f16 ", "kind::f16.ashift "), "not emulated"),
    (("kind::f16 ", "kind::mxf4 "), "needs .block_scale"),
])
def test_decoder_refusals(edit, why):
    c = Case(kind="f16", atype="f16", dtype="f32", m=128, n=8)
    with pytest.raises(EmulationError, match=why):
        c.run(c.ptx.replace(*edit))


@pytest.mark.parametrize("bits, why", [(1 << 2, "sparsity"), (1 << 23, "reserved"),
                                        (1 << 30, ".ws B-reuse"), (1 << 3, "saturate bit"),
                                        (1 << 24, "M = 144")])
def test_idesc_refusals(bits, why):
    c = Case(kind="f16", atype="f16", dtype="f32", m=128, n=8)
    bad = c.ptx.replace("\ttcgen05.mma", f"\txor.b32 %r12, %r12, {bits};\n\ttcgen05.mma")
    with pytest.raises(EmulationError, match=why):
        c.run(bad)
