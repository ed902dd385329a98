"""Issue 36 class 5: a tile.ring.stage index the verifier cannot bound is checked where it is used: the
lowering emits a trap for index >= stages, and tile-sim reports it as a fault at the op's tile IR line
(constant indices: test/Dialect/tile/trust-ranges-invalid.mlir). An index proved inside the ring
(g % S, b & 1) costs no check."""
import numpy as np
import pytest

from tile_mlir import compile
from tile_mlir.sim import EmulationError, run_ptx

RING = '''"tile.kernel"() ({{
^bb0(%i: i32, %out: !tile.buffer<global, 1xi32>):
  %b0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %b1 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %b2 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  {index}
  %bar = "tile.ring.stage"(%k, %b0, %b1, %b2) : (i32, !tile.buffer<shared, 1xi64>, !tile.buffer<shared, 1xi64>, !tile.buffer<shared, 1xi64>) -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.init"(%bar) {{count = 1}} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}}) {{sym_name = "ring", block = array<i32: 1, 1, 1>}} : () -> ()
'''
DIRECT = '%k = arith.addi %i, %i : i32'  # (2 i: no bound the verifier reads)
MOD3 = '%c3 = arith.constant 3 : i32\n  %k = arith.remui %i, %c3 : i32'
MOD4 = '%c4 = arith.constant 4 : i32\n  %k = arith.remui %i, %c4 : i32'  # 3 is outside a ring of 3


def _ptx(index: str) -> str:
    return compile(RING.format(index=index), arch="sm_100a", line_info=True, filename="ring.mlir").ptx


def _run(ptx: str, i: int):
    run_ptx(ptx, None, [i, np.zeros(1, np.int32)], block=(1, 1, 1), progress=False)


@pytest.mark.parametrize("index, i", [(DIRECT, 2), (DIRECT, 0x7FFFFFFF), (MOD4, 3), (MOD4, 7)])
def test_an_index_outside_the_ring_faults_at_the_op(index, i):
    ptx = _ptx(index)
    assert "trap;" in ptx
    line = RING.format(index=index).splitlines().index(next(x for x in RING.format(index=index).splitlines()
                                                             if "tile.ring.stage" in x)) + 1
    with pytest.raises(EmulationError, match=rf"ring.mlir:{line}:10: error: .*`trap`.*trap executed"):
        _run(ptx, i)


@pytest.mark.parametrize("index, i", [(DIRECT, 0), (DIRECT, 1), (MOD4, 6), (MOD3, 5)])
def test_an_index_inside_the_ring_runs(index, i):
    _run(_ptx(index), i)


def test_a_proved_index_costs_no_check():
    assert "trap" not in _ptx(MOD3)
