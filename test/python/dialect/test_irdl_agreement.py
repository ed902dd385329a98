"""lib/TileOps.irdl is what dialect/irdl.py generates from OP_SPECS, and upstream MLIR accepts under it
the tile IR that tile-verify accepts.

test/IRDL/ (lit, REQUIRES: mlir-opt-22) checks op by op what upstream accepts and rejects.
"""
from __future__ import annotations

import difflib
import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tile_mlir.dialect.irdl import IRDLError, emit_irdl, irdl_name, irdl_names, irdl_type
from tile_mlir.dialect.ops import OP_SPECS, AttrSpec, OperandSpec, OpSpec
from tile_mlir.dialect.types import BufferType
from tile_mlir.opt.command import TileOptMain

ROOT = Path(__file__).resolve().parents[3]
IRDL_FILE = ROOT / "lib" / "TileOps.irdl"
MLIR_OPT = shutil.which("mlir-opt-22")


def test_committed_file_is_current():
    committed, generated = IRDL_FILE.read_text(encoding="utf-8"), emit_irdl()
    diff = "".join(difflib.unified_diff(committed.splitlines(True), generated.splitlines(True),
                                        "lib/TileOps.irdl", "generated", n=1))
    assert committed == generated, f"lib/TileOps.irdl is stale: run `make irdl`\n{diff[:4000]}"


def test_tile_opt_emit_irdl(tmp_path):
    out = io.StringIO()
    assert TileOptMain(["--emit-irdl"], stdout=out).run() == 0
    assert out.getvalue() == emit_irdl()
    path = tmp_path / "TileOps.irdl"
    assert TileOptMain(["--emit-irdl", "-o", str(path)]).run() == 0
    assert path.read_bytes() == emit_irdl().encode()


def test_every_op_has_its_irdl_name():
    names = irdl_names()
    assert [s.name for s in names.values()] == [s.name for s in OP_SPECS]
    assert names["tmem_alloc"].name == "tmem.alloc" and names["copy_async"].name == "copy_async"
    assert all(f"irdl.operation @{n} {{" in emit_irdl() for n in names)


def _spec(name, **kw):
    return OpSpec(name, "An op.", **kw)


def test_shared_irdl_name_is_refused():
    with pytest.raises(IRDLError, match="tile.tmem.alloc and tile.tmem_alloc would both be 'tmem_alloc'"):
        irdl_names((_spec("tmem.alloc"), _spec("tmem_alloc")))


@pytest.mark.parametrize("spec,what", [
    pytest.param(_spec("tmem.Alloc"), "IRDL name of tile.tmem.Alloc 'tmem_Alloc'", id="uppercase"),
    pytest.param(_spec("tmem..alloc"), "'tmem__alloc'", id="double-underscore"),
    pytest.param(_spec(".alloc"), "'_alloc'", id="leading-underscore"),
    pytest.param(_spec("copy-async"), "'copy-async'", id="dash"),
    pytest.param(_spec("copy", operands=(OperandSpec("Dst", "i32"),)), "operand 'Dst'", id="operand"),
])
def test_invalid_irdl_name_is_refused(spec, what):
    with pytest.raises(IRDLError, match=re.escape(what) + " is not an IRDL name"):
        emit_irdl((spec,))


def test_shared_constraint_name_is_refused():
    spec = _spec("copy", operands=(OperandSpec("dst", "buffer:shared"),),
                 attrs=(AttrSpec("dst_shape", "i64", required=True),))
    with pytest.raises(IRDLError, match="constraint %dst_shape defined twice"):
        emit_irdl((spec,))


def test_two_optional_operands_are_refused():
    spec = _spec("pair", operands=(OperandSpec("a", "i32", optional=True), OperandSpec("b", "i32", optional=True)))
    with pytest.raises(IRDLError, match="tile.pair: more than one optional operand"):
        emit_irdl((spec,))


def test_each_field_of_a_spec_is_stated():
    spec = _spec("x.op", operands=(OperandSpec("buf", "buffer:shared|tmem"), OperandSpec("n", "i32", optional=True)),
                 results=(OperandSpec("flag", "i1"),),
                 attrs=(AttrSpec("mode", "str", required=True, choices=("a", "b")),
                        AttrSpec("count", "i64", required=True), AttrSpec("group", "i64", default=1, choices=(1, 2))),
                 regions=1)
    text = emit_irdl((spec,))
    body = text[text.index("irdl.operation @x_op {"):]
    for line in (
        '%buf_scope = irdl.any_of(%buf_scope_shared, %buf_scope_tmem)',
        '%buf = irdl.parametric @tile::@buffer<%buf_scope, %buf_shape, %buf_elem, %buf_layout, %buf_align, '
        '%buf_packing>',
        "irdl.operands(buf: %buf, n: optional %n)",
        "irdl.results(flag: %flag)",
        '%mode = irdl.any_of(%mode_a, %mode_b)',
        '%count = irdl.base "#builtin.integer"  // i64',
        '// optional "group": 1 | 2, default 1',
        'irdl.attributes {"mode" = %mode, "count" = %count}',
        "irdl.regions(body: %body)",
    ):
        assert f"\n    {line}\n" in body, line


@pytest.mark.parametrize("tile,irdl", [
    ("buffer<global, 32x16xui8>", '!tile.buffer<"global", array<i64: 32, 16>, ui8, "", 0, "">'),
    ('buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>',
     '!tile.buffer<"shared", array<i64: 32, 128>, ui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", 1024, "">'),
    ('buffer<shared, 32x32xf6E3M2FN, "S[(32, 32) : (32, 1)]", align 1024, packing b6x16_p32>',
     '!tile.buffer<"shared", array<i64: 32, 32>, f6E3M2FN, "S[(32, 32) : (32, 1)]", 1024, "b6x16_p32">'),
])
def test_irdl_type(tile, irdl):
    assert irdl_type(BufferType.parse_body(tile)) == irdl


# -- upstream accepts what tile-verify accepts --------------------------------------------------------
VALID_IR = sorted(ROOT.glob("examples/*.mlir")) + sorted(
    p for p in ROOT.glob("test/Dialect/tile/*.mlir") if "invalid" not in p.name)
_TILE_OP = re.compile(r'"tile\.([a-z0-9_.]+)"(?=\()')
_BUFFER = re.compile(r'!tile\.(buffer<(?:[^">]|"[^"]*")*>)')
# A `//` comment ends at the line's end wherever it starts (inside a type too), but not inside a string.
_COMMENT = re.compile(r'((?:[^"\n/]|"(?:[^"\\\n]|\\.)*"|/(?!/))*)//[^\n]*')


def irdl_spelling(text: str) -> str:
    """Tile IR in the spelling of lib/TileOps.irdl. tile.kernel and tile.return become unregistered ops:
    IRDL cannot make tile.return a terminator (test/IRDL/tile-ops-invalid.mlir)."""
    text = _COMMENT.sub(lambda m: m.group(1), text)
    text = _BUFFER.sub(lambda m: irdl_type(BufferType.parse_body(m.group(1))), text)
    unchecked = {"kernel", "return"}
    return _TILE_OP.sub(lambda m: f'"unchecked.{m.group(1)}"' if m.group(1) in unchecked
                        else f'"tile.{irdl_name(m.group(1))}"', text)


@pytest.mark.skipif(MLIR_OPT is None, reason="needs mlir-opt-22 on PATH (Debian mlir-22-tools)")
@pytest.mark.parametrize("path", VALID_IR, ids=[str(p.relative_to(ROOT)) for p in VALID_IR])
def test_upstream_verifies_valid_tile_ir(path):
    source = irdl_spelling(path.read_text(encoding="utf-8"))
    assert '"tile.' in source
    run = subprocess.run([MLIR_OPT, f"--irdl-file={IRDL_FILE}", "--allow-unregistered-dialect", "-"],
                         input=source, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, f"{run.stderr}\n--- input in IRDL spelling ---\n{source}"
