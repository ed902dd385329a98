"""The provider shims of tile_mlir.mlir (docs/providers.md): each one's answer on the provider this
process runs, and the other provider's form where this provider accepts it too. Runs on either provider
(CI runs it on both)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tile_mlir import mlir
from tile_mlir.mlir import BINDINGS, SHIMS, ir

ROOT = Path(__file__).resolve().parents[3]
MINE = 1 if BINDINGS == "cutlass" else 2
OTHER = 3 - MINE
def covers(name):
    """The shim `name` as this provider and the other one spell it (test_every_shim_is_tested finds
    the calls in this file's text)."""
    return SHIMS[name][MINE], SHIMS[name][OTHER]


@pytest.fixture
def ctx():
    with ir.Context() as c, ir.Location.unknown():
        c.allow_unregistered_dialects = True
        yield c


def test_the_exported_shims_are_this_providers():
    for name, (_why, cutlass, upstream) in SHIMS.items():
        assert getattr(mlir, name) is (cutlass if BINDINGS == "cutlass" else upstream), name


def test_provider_names_and_alias():
    assert BINDINGS in ("cutlass", "upstream")
    assert mlir.PROVIDERS == {"cutlass": "cutlass", "upstream": "upstream", "mlir": "upstream"}


def test_an_unknown_provider_is_refused_by_name():
    env = {**os.environ, "TILE_MLIR_BINDINGS": "llvm17", "PYTHONPATH": str(ROOT / "python")}
    r = subprocess.run([sys.executable, "-c", "import tile_mlir.mlir"], env=env, capture_output=True, text=True)
    assert r.returncode != 0
    assert "TILE_MLIR_BINDINGS='llvm17': expected 'cutlass' or 'upstream' (alias 'mlir')" in r.stderr


def test_the_other_provider_is_never_loaded():
    import tile_mlir

    tile_mlir.compile((ROOT / "examples" / "demo.mlir").read_text(), emit=("ptx",))
    other = "mlir" if BINDINGS == "cutlass" else "cutlass"
    assert other not in sys.modules


def test_llvm_version():
    v = mlir.llvm_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+(git)?", v), v
    assert v.split(".")[0] == {"cutlass": "23", "upstream": "22"}[BINDINGS]


def test_llvm_array_type(ctx):
    mine, other = covers("llvm_array_type")
    i8 = ir.IntegerType.get_signless(8)
    assert str(mine(i8, 128)) == "!llvm.array<128 x i8>"
    if BINDINGS == "cutlass":  # LLVM 23 has the builder, and parses upstream's form to the same type
        assert other(i8, 128) == mine(i8, 128)
    else:
        with pytest.raises(AttributeError):
            other(i8, 128)


def test_llvm_function_type(ctx):
    mine, other = covers("llvm_function_type")
    params = [ir.Type.parse("!llvm.ptr<1>"), ir.IntegerType.get_signless(32)]
    t = mine(ir.Type.parse("!llvm.void"), params)
    assert str(t) == "!llvm.func<void (ptr<1>, i32)>"
    if BINDINGS == "cutlass":
        assert other(ir.Type.parse("!llvm.void"), params) == t
    else:
        with pytest.raises(AttributeError):
            other(ir.Type.parse("!llvm.void"), params)


def test_mma_kind_attr(ctx):
    mine, _other = covers("mma_kind_attr")
    block = "tcgen05_mma_kind" if BINDINGS == "cutlass" else "block_scale_kind"
    assert str(mine("mxf8f6f4", True)) == f"#nvvm.{block}<mxf8f6f4>"
    assert str(mine("f16", False)) == "#nvvm.tcgen05_mma_kind<f16>"
    with pytest.raises(ValueError, match="unknown tcgen05.mma kind"):
        mine("f16>, x = <1", False)  # never pasted into attribute text


def test_mma_kind_reaches_the_ptx():
    """The block-scaled MMA lowers to kind::mxf8f6f4.block_scale on either spelling."""
    sys.path.insert(0, str(ROOT / "examples"))
    import gemm_blockscaled as gemm
    import tile_mlir

    art = tile_mlir.compile(gemm.build(gemm.GemmConfig("sm_100a", "mxfp8", 128, 128, 256)), emit=("ptx",))
    assert re.search(r"tcgen05\.mma\.cta_group::1\.kind::mxf8f6f4\.block_scale", art.ptx)


def test_init_mlir_error():
    mine, _other = covers("init_mlir_error")

    class Plain(mlir.MLIRError):
        def __init__(self, message, diagnostics):
            mine(self, message, diagnostics)

    e = Plain("bad", [])
    assert str(e) == "bad" and isinstance(e, Exception)
    from tile_mlir.frontend.context import make_context, parse_source

    # SourceError (message and diagnostics as properties) through the text checks
    with pytest.raises(mlir.MLIRError) as info:
        parse_source("module {\n" * 300 + "}\n" * 300, "deep.mlir", make_context())
    assert "nested 257 deep" in str(info.value)
    assert len(info.value.error_diagnostics) == 1


def test_binary_pass(monkeypatch):
    mine, _other = covers("binary_pass")
    assert mine("isa") == "gpu-module-to-binary{format=isa}"
    embedded, toolkit = SHIMS["binary_pass"][1], SHIMS["binary_pass"][2]
    assert embedded("bin") == "gpu-module-to-binary{format=bin}"
    from tile_mlir.driver import toolchain

    ptxas = toolchain.find_tool("ptxas")
    root = os.path.dirname(os.path.dirname(ptxas))
    assert toolkit("bin") == f'gpu-module-to-binary{{format=bin toolkit="{root}"}}'
    assert os.access(os.path.join(root, "bin", "ptxas"), os.X_OK)  # where NVPTX's serializer looks
    monkeypatch.setattr(toolchain, "find_tool", lambda name: '/odd"dir/bin/ptxas')
    assert toolkit("bin") == "gpu-module-to-binary{format=bin}"  # (PATH then: a quote ends the value)


def test_binary_pass_makes_a_cubin():
    import tile_mlir

    art = tile_mlir.compile((ROOT / "examples" / "demo.mlir").read_text(), emit=("cubin",))
    assert art.cubin[:4] == b"\x7fELF"


def test_operand_segments(ctx):
    mine, _other = covers("operand_segments")
    # tcgen05.mma has seven segments on both; mbarrier.init none on either
    assert list(mine("nvvm.tcgen05.mma", [1, 1, 1, 1, 1, 0, 0])["operandSegmentSizes"]) == [1, 1, 1, 1, 1, 0, 0]
    assert mine("nvvm.mbarrier.init", [1, 1, 0]) == {}
    arrive = mine("nvvm.mbarrier.arrive", [1, 0, 0])
    assert (arrive != {}) == (BINDINGS == "cutlass")  # LLVM 23's has a multicast-mask operand
    with pytest.raises(ValueError, match="7 operand segments, not 2"):
        mine("nvvm.tcgen05.mma", [1, 1])
    with pytest.raises(ValueError, match="no op 'nvvm.no_such_op'"):
        mine("nvvm.no_such_op", [1])


def test_operand_segments_verify(ctx):
    """The mbarrier ops as the lowering creates them verify on this provider."""
    seg = mlir.operand_segments
    ptr = ir.Type.parse("!llvm.ptr<3>")
    i32, i64 = ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(64)
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        bar = ir.Operation.create("llvm.mlir.zero", results=[ptr]).result
        n = ir.Operation.create("llvm.mlir.constant", results=[i32],
                                attributes={"value": ir.IntegerAttr.get(i32, 4)}).result
        ir.Operation.create("nvvm.mbarrier.arrive", results=[i64], operands=[bar],
                            attributes=seg("nvvm.mbarrier.arrive", [1, 0, 0]))
        ir.Operation.create("nvvm.mbarrier.arrive.expect_tx", operands=[bar, n],
                            attributes=seg("nvvm.mbarrier.arrive.expect_tx", [1, 1, 0, 0]))
    assert module.operation.verify()
    assert "operandSegmentSizes" not in str(module)  # a property where the op has it, else absent


def test_tile_opt_version_names_the_provider_and_llvm():
    from tile_mlir.opt.command import VERSION

    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "tile-opt"), "--version"], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"tile-opt {VERSION} (MLIR Python bindings: {BINDINGS}, LLVM {mlir.llvm_version()})\n"


def test_compile_cache_key_has_the_provider_and_ptxas(monkeypatch):
    from tile_mlir.runtime import cache
    from tile_mlir.driver.toolchain import find_tool

    keys = {}
    for choice in ("cutlass", "upstream"):
        monkeypatch.setenv("TILE_MLIR_BINDINGS", choice)
        cache._toolchain.cache_clear()
        keys[choice] = cache._toolchain()
    assert keys["cutlass"] != keys["upstream"]
    ptxas = find_tool("ptxas")
    monkeypatch.setattr(cache, "find_tool", lambda name: None)
    cache._toolchain.cache_clear()
    assert cache._toolchain() != keys["upstream"] and ptxas
    cache._toolchain.cache_clear()


def test_parse_guard():
    mine, _other = covers("parse_guard")
    guard_22 = SHIMS["parse_guard"][2]
    text = '"t.x"() {c = array<i32: 1>, d = "array<index: 1>"} : () -> () // array<index: 2>\n'
    assert guard_22(text) is None  # in a string or a comment it is no array
    p = guard_22(text + '"t.y"() {e = array< index : 2>} : () -> ()\n')
    assert (p.line, p.col, p.message) == (2, 21, "expected integer or float type, got: 'index'")
    assert SHIMS["parse_guard"][1](text + "array<index: 2>") is None  # LLVM 23's parser reports it


def test_llvm_ir():
    """The provider's translation of the demo's gpu.module to LLVM IR text (artifact.asm["llvmir"])."""
    import tile_mlir

    mine, _other = covers("llvm_ir")
    art = tile_mlir.compile((ROOT / "examples" / "demo.mlir").read_text(), filename="demo.mlir", keep=("llvmir",))
    assert "define ptx_kernel void @demo(" in art.asm["llvmir"]
    assert "@llvm.nvvm.tcgen05.cp" in art.asm["llvmir"]


def test_register_math_assembles_on_either_provider():
    """The tile.reg ops on sm_100a: the packed f32x2 forms where the provider's NVVM ops translate, the
    scalar intrinsics elsewhere (LLVM 22); the PTX's rounding is .rn either way."""
    import tile_mlir

    mine, other = covers("nvvm_f32_ops")
    assert mine is not other
    text = (ROOT / "test" / "Target" / "PTX" / "reg-math.mlir").read_text()
    ptx = tile_mlir.compile(text, "sm_100a", filename="reg-math.mlir", emit=("ptx",)).asm["ptx"]
    assert ("add.rn.f32x2" in ptx) is mine and ("fma.rn.f32x2" in ptx) is mine
    assert "fma.rn.f32 " in ptx or mine
    assert "ex2.approx.ftz.f32" in ptx and "bar.arrive" in ptx


def test_an_index_array_is_a_diagnostic_on_either_provider():
    import tile_mlir

    bad = (ROOT / "examples" / "demo.mlir").read_text().replace("block = array<i32:", "block = array<index:")
    assert "array<index:" in bad
    with pytest.raises(tile_mlir.TileError) as info:
        tile_mlir.compile(bad, filename="bad.mlir")
    assert "expected integer or float type, got: 'index'" in str(info.value)



def test_every_shim_is_tested():
    """Each shim has a test here that takes it through covers(): read from this file's text, since its
    tests may run in any order and in several processes (pytest-xdist)."""
    covered = set(re.findall(r'covers\("(\w+)"\)', Path(__file__).read_text()))
    assert covered == set(SHIMS), set(SHIMS) - covered
