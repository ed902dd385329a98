"""Global -> shared by cp.async, then shared -> tensor memory by tcgen05.cp: the two copy_async variants
in one kernel, compiled for sm_100a and run on tile-sim.

cp.async writes shared memory through the generic proxy, so tcgen05.cp (async proxy) may read it only
after the issuing threads' wait and fence.proxy.async (the lowering adds the fence after tile.async_wait)
and a barrier; without the wait, tile-sim reports the race instead of returning stale bytes."""
import os
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir.sim import EmulationError, run_ptx

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir)


def _kernel(wait: bool):
    """examples/demo_builder.py's demo with shared memory filled by copy_async (cp.async, the CTA), then
    tile.async_wait if `wait`; no fence.proxy.async (the lowering adds it after the wait)."""
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    from demo_builder import build_demo

    from tile_mlir.frontend.context import make_context
    from tile_mlir.dialect import builders as tb

    def fill(smem, a):
        tb.copy_async(smem, a, scope="cta")
        if wait:
            tb.async_wait()

    return build_demo(make_context(), fill)


def test_cp_async_then_tcgen05_cp_matches():
    art = tile_mlir.compile(_kernel(wait=True), emit=("ptx",))
    assert "cp.async.cg.shared.global" in art.ptx and "tcgen05.cp.cta_group::1.32x128b.warpx4" in art.ptx
    wait_at = art.ptx.index("cp.async.wait_group")
    assert "fence.proxy.async" in art.ptx[wait_at:art.ptx.index("tcgen05.cp.")]
    a = np.random.default_rng(5).integers(0, 256, (32, 16), dtype=np.uint8)
    out = np.zeros((128, 16), np.uint8)
    res = run_ptx(art.ptx, art.kernel_name, [a, out], block=art.block)
    assert np.array_equal(out, np.tile(a, (4, 1)))
    assert res.warnings == []


def test_tcgen05_cp_before_the_cp_async_wait_is_a_race():
    art = tile_mlir.compile(_kernel(wait=False), emit=("ptx",))
    a = np.zeros((32, 16), np.uint8)
    with pytest.raises(EmulationError, match=r"tcgen05.cp read at shared 0x0 .* races with the cp.async issued"):
        run_ptx(art.ptx, art.kernel_name, [a, np.zeros((128, 16), np.uint8)], block=art.block)
