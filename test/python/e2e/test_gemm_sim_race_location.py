"""A race injected into the block-scaled GEMM of examples/gemm_blockscaled.py (tile IR -> PTX with line info
-> tile-sim) is reported at the tile IR line of the op that reads too early, in MLIR's diagnostic form
(`file:line:col: error: ...`), with the PTX line. The example builds its module with unknown locations, so
the IR is written to a file and compiled from it, as a user's .mlir file is."""
from __future__ import annotations

import os
import sys

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir, "examples"))

import gemm_blockscaled as gemm  # noqa: E402


def _first_line(text: str, *needles: str) -> tuple[int, int]:
    """(line, column), 1-based, of the first `"tile.copy_async"` op whose line holds every needle."""
    for n, line in enumerate(text.split("\n"), 1):
        if '"tile.copy_async"(' in line and all(s in line for s in needles):
            return n, line.index('"tile.copy_async"') + 1
    raise AssertionError(f"no tile.copy_async with {needles}")


# which wait is dropped (the op after it: what the wait guarded) -> the op that reads too early (a needle of
# its line), its PTX mnemonic, and what the message says
CASES = {
    # the MMA warp's first wait on stage 0's `full` barrier: its scale-factor copy (tcgen05.cp, smem -> tmem)
    # reads shared memory the stage's TMA loads are still writing
    "mma-operands": (": (!tile.buffer<tmem", "tcgen05.cp.", "races with the cp.async.bulk.tensor issued at line"),
    # the epilogue's wait on the MMAs' last commit: its tcgen05.ld reads the accumulator the MMAs still write
    "epilogue-accumulator": (": (!tile.buffer<reg", "tcgen05.ld.", "reads TMEM written by the tcgen05.mma at line"),
}


def _dropped_wait(module, case: str):
    from tile_mlir.dialect.ir_utils import iter_ops

    ops = list(iter_ops(module.operation))
    for i, op in enumerate(ops):
        if op.name != "tile.mbarrier.wait":
            continue
        nxt = ops[i + 1]
        if case == "mma-operands" and nxt.name == "tile.copy_async":
            return op
        if case == "epilogue-accumulator" and nxt.name == "tile.fence" and "tcgen05_after_sync" in str(nxt):
            return op
    raise AssertionError(f"no wait for {case}")


# (make test: the shared-memory race; the tensor-memory one in the slow tier)
@pytest.mark.parametrize("case", [c if c == "mma-operands" else pytest.param(c, marks=pytest.mark.slow)
                                  for c in CASES])
def test_race_injected_into_the_gemm_names_the_tile_ir_line(tmp_path, case):
    import tile_mlir
    from tile_mlir.runtime import SimRunError

    needle, mnemonic, says = CASES[case]
    cfg = gemm.GemmConfig("sm_100a", "mxfp8", 128, 128, 256)
    module = gemm.build(cfg)
    _dropped_wait(module, case).erase()
    args = gemm.operands(cfg)
    ins = [args[n] for n in ("A", "B", "SFA", "SFB")]

    def run(kernel):
        with pytest.raises(SimRunError) as ei:
            kernel(*ins, np.zeros((cfg.m, cfg.n), ml_dtypes.bfloat16))
        return ei.value

    # the module itself: its locations are unknown, so the error names the PTX line alone (no made-up line 1)
    bare = tile_mlir.jit(module, arch="sm_100a", backend="sim")
    e = run(bare)
    assert str(e).startswith("line ") and e.source is None, str(e)[:300]

    # the same IR from a file (the same text: the compile cache must not answer with the module's PTX)
    text = str(module)
    path = tmp_path / f"gemm_{case}.mlir"
    path.write_text(text)
    kernel = tile_mlir.jit(str(path), arch="sm_100a", backend="sim")
    line, col = _first_line(text, needle)
    ptx_lines = kernel.artifact.ptx.split("\n")
    ptx_line = next(n for n, s in enumerate(ptx_lines, 1) if s.strip().startswith(mnemonic))
    e = run(kernel)
    msg = str(e)
    assert msg.startswith(f"{path}:{line}:{col}: error: PTX line {ptx_line}: `{mnemonic}"), msg[:300]
    assert says in msg, msg[:600]
    assert e.source == e.error.source == f"{path}:{line}:{col}" and e.ptx_line == ptx_line
