# RUN: %PYTHON %s | FileCheck %s
# tile-sim runs the PTX the pipeline emits: the demo's tensor memory, all 128 lanes.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_helper import run  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)


# CHECK-LABEL: TEST: demo_tmem_all_lanes
# CHECK: tmem lanes 128 columns 0-3 match True
# CHECK: readback match True
# CHECK: unwritten columns poisoned True
@run
def demo_tmem_all_lanes():
    import numpy as np

    import tile_mlir
    from tile_mlir.sim import run_ptx

    art = tile_mlir.compile(open(os.path.join(ROOT, "examples", "demo.mlir")).read(), emit=("ptx",))
    a = (np.arange(512, dtype=np.uint32) * 37 % 251).astype(np.uint8).reshape(32, 16)
    out = np.zeros((128, 16), np.uint8)
    res = run_ptx(art.ptx, art.kernel_name, [a, out], block=art.block)
    tmem = res.tmem[0]
    got = tmem[:, :4].copy().view(np.uint8).reshape(128, 16)
    print("tmem lanes", got.shape[0], "columns 0-3 match", np.array_equal(got, np.tile(a, (4, 1))))
    print("readback match", np.array_equal(out, np.tile(a, (4, 1))))
    print("unwritten columns poisoned", bool((tmem[:, 4:32] == 0xDEADBEEF).all()))


# CHECK-LABEL: TEST: missing_proxy_fence_is_an_emulation_error
# CHECK: caught: EmulationError
@run
def missing_proxy_fence_is_an_emulation_error():
    import numpy as np

    import tile_mlir
    from tile_mlir.sim import EmulationError, run_ptx

    art = tile_mlir.compile(open(os.path.join(ROOT, "examples", "demo.mlir")).read(), emit=("ptx",))
    ptx = "\n".join(ln for ln in art.ptx.splitlines() if "fence.proxy.async" not in ln)
    try:
        run_ptx(ptx, art.kernel_name, [np.zeros((32, 16), np.uint8), np.zeros((128, 16), np.uint8)], block=art.block,
                strict=True)  # our kernel: strict (run_ptx's default is lenient, for foreign PTX)
        print("no error")
    except EmulationError as e:
        print("caught:", type(e).__name__, "-", str(e).split(":")[0])
