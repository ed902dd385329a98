"""lowering/values.py: the one buffer-value converter (what each MemScope lowers to; bind checks it; its casts
are the only unrealized casts the lowerings make, and convert-tile-to-nvvm resolves every one)."""
import pytest

from tile_mlir.frontend.context import make_context, parse_source
from tile_mlir.diagnostics import DiagnosticEngine
from tile_mlir.dialect.enums import MemScope
from tile_mlir.lowering.emitter import Emitter
from tile_mlir.lowering.errors import LoweringError
from tile_mlir.lowering.values import BufferValues, lowered_type
from tile_mlir.mlir import ir
from tile_mlir.driver.passes import build_pass_manager

KERNEL = '''"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xui8>
  "tile.copy_async"(%s, %A) : (!tile.buffer<shared, 64x16xui8>, !tile.buffer<global, 64x16xui8>) -> ()
  "tile.async_wait"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "k", block = array<i32: 64, 1, 1>} : () -> ()
'''


def test_each_scope_lowers_to_one_type():
    with make_context():
        assert [str(lowered_type(s)) for s in MemScope] == ["!llvm.ptr<1>", "!llvm.ptr<3>", "i32", "!llvm.ptr"]


def test_bind_checks_the_lowered_type_and_get_casts_before_binding():
    ctx = make_context()
    module = parse_source(KERNEL, "k.mlir", ctx)
    with ctx, ir.Location.unknown():
        body = module.regions[0].blocks[0].operations[0].regions[0].blocks[0]
        arg = body.arguments[0]
        values = BufferValues()
        em = Emitter(ir.InsertionPoint.at_block_begin(body), ir.Location.unknown())
        cast = values.get(arg, em)  # not bound: the converter's cast to !llvm.ptr<1>
        assert cast.owner.name == "builtin.unrealized_conversion_cast" and str(cast.type) == "!llvm.ptr<1>"
        with pytest.raises(LoweringError, match="lowered as i32, expected !llvm.ptr<1>"):
            values.bind(arg, em.i32(0))


def test_convert_tile_to_nvvm_resolves_the_dispatch_casts():
    ctx = make_context()
    module = parse_source(KERNEL, "k.mlir", ctx)
    with DiagnosticEngine() as engine:
        pm = build_pass_manager("tile-verify,tile-lower-copy-async{chip=sm_90a}", ctx)
        with ctx:
            pm.run(module)
        dispatched = str(module)
        pm = build_pass_manager("convert-tile-to-nvvm{chip=sm_90a}", ctx)
        with ctx:
            pm.run(module)
    assert not engine.has_errors(), engine.diagnostics
    assert dispatched.count("builtin.unrealized_conversion_cast") == 2  # (cp.async's dst and src)
    assert "unrealized_conversion_cast" not in str(module)
