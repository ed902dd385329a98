"""tcgen05.ld destination registers are unreadable until tcgen05.wait::ld (PTX ISA: the load is
asynchronous; sim/handlers/ld_poison.py): a use before the wait is the ``tcgen05.wait::ld``
finding in lenient mode (the bits used as loaded) and an error in strict mode; a copy (mov) before
the wait carries the poison and is fine to use after it (A40)."""

import numpy as np
import pytest

from test_tcgen05_ldst_shapes import ldst_kernel  # noqa: E402 (conftest path)
from tile_mlir.sim import EmulationError, run_ptx

WAIT = "\ttcgen05.wait::ld.sync.aligned;\n"
STORE0 = "\tst.global.u32 [%rd3+0], %r200;\n"


def ptx_with(body_edit):
    ptx = ldst_kernel("32x32b", 2, 2, 0, 0)
    assert WAIT in ptx and STORE0 in ptx
    return body_edit(ptx)


def use_before_wait(ptx):  # the first store reads %r200 before the wait
    ptx = ptx.replace(WAIT, "")
    return ptx.replace(STORE0, STORE0 + WAIT)


def copy_before_wait(ptx):  # mov %r300, %r200 above the wait, the store of the copy after it
    ptx = ptx.replace(WAIT, "\tmov.b32 %r300, %r200;\n" + WAIT)
    return ptx.replace(STORE0, "\tst.global.u32 [%rd3+0], %r300;\n")


def expected():
    return np.array([[t * 1000, t * 1000 + 1] for t in range(32)], np.uint32)


def test_use_before_wait_is_a_finding_in_lenient_mode(assemble):
    ptx = ptx_with(use_before_wait)
    assemble(ptx)
    out = np.zeros((32, 2), np.uint32)
    res = run_ptx(ptx, "k", [out], block=(32, 1, 1), strict=False)
    np.testing.assert_array_equal(out, expected())  # the bits as loaded
    ld = next(i for i, l in enumerate(ptx.split("\n"), 1) if "tcgen05.ld." in l)
    assert [(f.rule, f.line, f.count) for f in res.findings] == [("tcgen05.wait::ld", ld, 32)]


def test_use_before_wait_is_an_error_in_strict_mode(assemble):
    ptx = ptx_with(use_before_wait)
    with pytest.raises(EmulationError, match=r"tcgen05\.wait::ld"):
        run_ptx(ptx, "k", [np.zeros((32, 2), np.uint32)], block=(32, 1, 1), strict=True)


def test_a_copy_before_the_wait_is_no_use(assemble):
    ptx = ptx_with(copy_before_wait)
    assemble(ptx)
    out = np.zeros((32, 2), np.uint32)
    res = run_ptx(ptx, "k", [out], block=(32, 1, 1), strict=True)
    np.testing.assert_array_equal(out, expected())
    assert res.findings == []
