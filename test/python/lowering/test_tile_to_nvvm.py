"""convert-tile-to-nvvm: one lowering per tile op (a dispatch with one variant), and fences derived from traits."""
import pytest

from tile_mlir.frontend.context import make_context, parse_source
from tile_mlir.diagnostics import DiagnosticEngine
from tile_mlir.dialect.ops import OP_CLASSES, OP_SPECS, BarrierOp
from tile_mlir.lowering.dispatch import TARGET, variants
from tile_mlir.lowering.nvvm import lowering_of, lowers
from tile_mlir.lowering.tile_to_nvvm import PLAIN_OPS
from tile_mlir.driver.passes import build_pass_manager


def test_every_op_but_copy_async_has_one_lowering():
    """copy_async and gemm_async are lowered by their dispatch passes (tile-lower-copy-async,
    tile-lower-gemm-async), every other op here."""
    dispatched = ("copy_async", "gemm_async", "gemm_async.block_scale")
    assert sorted(s.name for s in OP_SPECS if s.dispatched) == sorted(dispatched)
    assert {c for c in OP_CLASSES if lowering_of(c)} == {c for c in OP_CLASSES if c.SPEC.name not in dispatched}
    for c in OP_CLASSES:
        if lowering_of(c):  # a plain op: one variant, matched by the pass's second walk (or the kernel's first)
            assert [v.variant for v in variants(c.OPERATION_NAME, TARGET)] == ["nvvm"]
            assert c.OPERATION_NAME in PLAIN_OPS or c.OPERATION_NAME == "tile.kernel"


def test_a_second_lowering_is_refused():
    with pytest.raises(ValueError, match="variant 'nvvm' of tile.barrier/cuda is registered twice"):
        lowers(BarrierOp)(lambda k, op, em: None)


def lowered(body: str) -> str:
    text = ('"tile.kernel"() ({\n' + body + '\n  "tile.return"() : () -> ()\n'
            '}) {sym_name = "k", block = array<i32: 128, 1, 1>} : () -> ()\n')
    ctx = make_context()
    module = parse_source(text, "input.mlir", ctx)
    with DiagnosticEngine() as engine:
        pm = build_pass_manager("tile-verify,convert-tile-to-nvvm", ctx)
        with ctx:
            pm.run(module)
    assert not engine.has_errors(), engine.diagnostics
    return str(module)


SLOT = "!tile.buffer<shared, 1xi32>"


@pytest.mark.parametrize("op", [
    f'"tile.tmem.alloc"(%s) {{num_cols = 32}} : ({SLOT}) -> ()',
    f'"tile.tmem.dealloc"(%s) {{num_cols = 32}} : ({SLOT}) -> ()',
    '"tile.tmem.relinquish"() : () -> ()',
])
def test_a_tcgen05_op_brings_tcgen05_fences_around_a_barrier(op):
    out = lowered(f'  %s = "tile.alloc_shared"() : () -> {SLOT}\n  {op}\n  "tile.barrier"() : () -> ()')
    fences = [line.strip() for line in out.splitlines() if "tcgen05.fence" in line or "barrier0" in line]
    assert fences == ["nvvm.tcgen05.fence <before>", "nvvm.barrier0", "nvvm.tcgen05.fence <after>"]


def test_no_tcgen05_op_no_tcgen05_fences():
    out = lowered('  "tile.barrier"() : () -> ()')
    assert "nvvm.barrier0" in out and "tcgen05.fence" not in out
