"""ldmatrix / stmatrix: the fragment tables as literals (PTX ISA figures), NVIDIA's own layouts for
the 8-bit shapes, every form run on tile-sim against the ISA's description, and the malformed
forms refused."""

import os
import re
import sys

import numpy as np
import pytest

import tiers
from isa_harness import isa_rows
from tile_mlir.sim import EmulationError, run_ptx
from tile_mlir.sim.handlers.matrix import table

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "foreign"))
import matrix_cases as mc  # noqa: E402

T = "test/python/sim/test_matrix_tables.py::"


def elem(tab, lane, reg, half):
    """(row, column) of 16-bit element ``half`` of register ``reg`` of ``lane`` (m8n8 .b16)."""
    b = int(tab[lane, reg, 2 * half])
    return (b // 16) % 8, (b % 16) // 2


# PTX ISA figure "ldmatrix fragment for 8x8 matrix" (stmatrix draws the same): a row per four
# threads, thread 0 holds a0 a1 = (0, 0) (0, 1), thread 1 (0, 2) (0, 3), ..., thread 31 (7, 6) (7, 7)
M8N8 = {0: [(0, 0), (0, 1)], 1: [(0, 2), (0, 3)], 3: [(0, 6), (0, 7)], 4: [(1, 0), (1, 1)],
        13: [(3, 2), (3, 3)], 30: [(7, 4), (7, 5)], 31: [(7, 6), (7, 7)]}


@pytest.mark.parametrize("op", ["ld", "st"])
def test_m8n8_b16_literal(op):
    for num in (1, 2, 4):
        tab = table(op, "m8n8", num, False)
        tr = table(op, "m8n8", num, True)
        for lane, want in M8N8.items():
            for k in range(num):
                assert [elem(tab, lane, k, h) for h in (0, 1)] == want
                assert [elem(tr, lane, k, h) for h in (0, 1)] == [(c, r) for r, c in want]
                assert int(tab[lane, k, 0]) // 128 == k  # matrix k = rows 8k..8k+7
        # the two bytes of an element are adjacent, low byte first
        assert (tab[..., 1] == tab[..., 0] + 1).all() and (tab[..., 3] == tab[..., 2] + 1).all()


def cute_layout(shape, stride):
    """Evaluate a CuTe layout (nested shape / stride tuples, column-major coordinates) at every
    index: written here from CuTe's definition, apart from tile-sim."""
    def flat(s, d):
        if isinstance(s, tuple):
            out = []
            for a, b in zip(s, d):
                out += flat(a, b)
            return out
        return [(s, d)]
    modes = flat(shape, stride)
    size = int(np.prod([s for s, _ in modes]))
    idx = np.arange(size)
    val = np.zeros(size, np.int64)
    for s, d in modes:
        val += (idx % s) * d
        idx //= s
    return val


# CUTLASS include/cute/atom/copy_traits_sm100.hpp: (thread, value) -> bit of the reference matrix
# for the shared side (Src of LDSM / Dst of STSM: each thread's 128-bit row) and the register side
TRAITS = {
    ("ld", "m16n16", 1): (((2, 2, 4, 2), 128), ((128, 1024, 256, 0), 1),
                          ((4, 8), (8, 2, 2, 2)), ((256, 8), (1, 128, 64, 1024))),
    ("ld", "m16n16", 2): (((2, 2, 4, 2), 128), ((128, 1024, 256, 2048), 1),
                          ((4, 8), (8, 2, 2, 4)), ((256, 8), (1, 128, 64, 1024))),
    ("st", "m16n8", 1): (((8, 4), 128), ((128, 0), 1), ((4, 8), (8, 2, 2)), ((256, 8), (1, 128, 64))),
    ("st", "m16n8", 2): (((16, 2), 128), ((128, 0), 1),
                         ((4, 8), (8, 2, 2, 2)), ((256, 8), (1, 128, 64, 1024))),
    ("st", "m16n8", 4): ((32, 128), (128, 1), ((4, 8), (8, 2, 2, 4)), ((256, 8), (1, 128, 64, 1024))),
    ("ld", "m8n16", 1): (((8, 4), 128), ((128, 0), 1), (32, 32), (32, 1)),
    ("ld", "m8n16", 2): (((16, 2), 128), ((128, 0), 1), (32, (32, 2)), (32, (1, 1024))),
    ("ld", "m8n16", 4): ((32, 128), (128, 1), (32, (32, 4)), (32, (1, 1024))),
}


@pytest.mark.parametrize("key", sorted(TRAITS))
def test_8bit_tables_are_cutlass_layouts(key):
    op, shape, num = key
    s_shape, s_stride, r_shape, r_stride = TRAITS[key]
    # (thread, value) -> reference bit; CuTe coordinates are column-major: index = thread + 32 value
    smem = cute_layout(s_shape, s_stride).reshape(-1, 32).T  # thread -> its row's 128 bits
    regs = cute_layout(r_shape, r_stride).reshape(-1, 32).T  # thread -> its registers' bits
    rows = {}  # reference row (128 bits) -> index of the thread giving its address
    for t in range(smem.shape[0]):
        rows.setdefault(int(smem[t, 0]) // 128, t)
    tab = table(op, shape, num, True if shape != "m8n16" else False)
    nregs = tab.shape[1]
    for lane in range(32):
        for k in range(nregs):
            for j in range(4):
                ref = int(regs[lane, 32 * k + 8 * j])  # the byte's lowest bit
                want = 16 * rows[ref // 128] + (ref % 128) // 8
                assert int(tab[lane, k, j]) == want, (lane, k, j)


@pytest.mark.parametrize("op,form", [(op, f) for op in ("ld", "st") for f in mc.forms(op)])
def test_every_form_runs_as_the_isa_says(op, form, assemble):
    ptx = mc.kernel(op, form)
    assemble(ptx, mc.arch(form))
    inp = mc.inputs()
    out = np.zeros(mc.out_bytes(op, form), np.uint8)
    run_ptx(ptx, "k", [inp.copy(), out], block=(32, 1, 1), strict=True)
    np.testing.assert_array_equal(out, mc.expected(op, form, inp))


@pytest.mark.parametrize("op,form,match", [
    ("ld", "m16n16.x1.shared.b8", r"needs \.trans"),
    ("ld", "m16n16.x4.trans.shared.b8", r"\.x1 or \.x2 only"),
    ("ld", "m8n8.x1.shared.b8", r"takes \.b16"),
    ("ld", "m8n16.x1.trans.shared.b8x16.b4x16_p64", r"takes no \.trans"),
    ("ld", "m8n16.x1.shared.b8x16", r"needs a source format"),
    ("st", "m16n8.x1.shared.b8", r"needs \.trans"),
])
def test_malformed_forms_are_refused(op, form, match):
    ptx = mc.kernel(op, form)
    with pytest.raises(EmulationError, match=match):
        run_ptx(ptx, "k", [mc.inputs(), np.zeros(512, np.uint8)], block=(32, 1, 1))


def test_misaligned_row_address_faults():
    ptx = mc.kernel("ld", "m8n8.x4.shared.b16").replace("shl.b32 %r13, %r13, 4;",
                                                         "shl.b32 %r13, %r13, 3;")
    with pytest.raises(EmulationError, match=r"not 16-byte aligned"):
        run_ptx(ptx, "k", [mc.inputs(), np.zeros(512, np.uint8)], block=(32, 1, 1), strict=False)


def _row_kernel(op, form):
    """mc.kernel, with a generic address for stmatrix forms without a state space."""
    ptx = mc.kernel(op, form)
    if op == "st" and ".shared" not in form:
        ptx = ptx.replace(f"\tstmatrix.sync.aligned.{form} [%r14]",
                          "\tcvt.u64.u32 %rd8, %r14;\n\tcvta.shared.u64 %rd9, %rd8;\n"
                          f"\tstmatrix.sync.aligned.{form} [%rd9]")
    return ptx


# make test: each form once whatever its state space (none, .shared, .shared::cta: one address path);
# the other spellings in the slow tier (tiers.cover)
@pytest.mark.parametrize("row", tiers.cover(
    isa_rows(T + "test_every_row_runs_as_the_isa_says"),
    lambda r: re.sub(r"\.shared(::cta)?(?=\.)", "", r["form"])), ids=lambda r: r["form"])
def test_every_row_runs_as_the_isa_says(row, assemble):
    """Every ldmatrix / stmatrix row of the ISA coverage table (every shape, number, .trans, source
    format and state space, generic included) against the ISA's description (matrix_cases)."""
    op = row["form"][:2]
    form = row["form"].split(".sync.aligned.", 1)[1]
    ptx = _row_kernel(op, form)
    assert f"matrix.sync.aligned.{form} " in ptx
    assemble(ptx, mc.arch(form))
    inp = mc.inputs(seed=len(form))
    out = np.zeros(mc.out_bytes(op, form), np.uint8)
    run_ptx(ptx, "k", [inp.copy(), out], block=(32, 1, 1), strict=True)
    np.testing.assert_array_equal(out, mc.expected(op, form, inp))
