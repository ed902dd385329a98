"""CompileOptions: made once per compile and handed to every pass and stage; the chip is parsed once."""
import dataclasses
from pathlib import Path

import pytest

import tile_mlir.target as target
from tile_mlir.driver.compiler import compile
from tile_mlir.frontend.context import make_context
from tile_mlir.driver.pass_base import CompileOptions, PipelineError
from tile_mlir.driver.passes import pass_class
from tile_mlir.driver.stages import STAGES, Stage

DEMO = (Path(__file__).resolve().parents[3] / "examples" / "demo.mlir").read_text()


class _Counting:
    """target._ARCH_RE, counting the chip names parse_arch reads."""

    def __init__(self, inner):
        self.inner, self.n = inner, 0

    def fullmatch(self, s):
        self.n += 1
        return self.inner.fullmatch(s)


def test_the_chip_is_parsed_once_per_compile(monkeypatch):
    compile(DEMO, filename="demo")  # (imports and the thread's context first)
    counting = _Counting(target._ARCH_RE)
    monkeypatch.setattr(target, "_ARCH_RE", counting)
    compile(DEMO, arch="sm_100a", filename="demo")
    assert counting.n == 1


def test_options_are_frozen_and_reach_every_pass():
    opts = CompileOptions(target.parse_arch("sm_90a"), all_variants=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.arch = target.parse_arch("sm_100a")
    with make_context():
        for name in ("tile-verify", "tile-lower-copy-async", "tile-lower-gemm-async", "convert-tile-to-nvvm"):
            p = pass_class(name)({}, compile_options=opts)
            assert p.compile is opts
        # an option in pipeline text overrides its field, in a copy
        p = pass_class("convert-tile-to-nvvm")({"chip": "sm_100a"}, compile_options=opts)
        assert p.compile.arch.arch == "sm_100a" and p.compile.all_variants and opts.arch.arch == "sm_90a"
        with pytest.raises(PipelineError, match="option chip: unknown GPU architecture"):
            pass_class("tile-lower-copy-async")({"chip": "sm_91x"}, compile_options=opts)


def test_stages_are_objects_with_their_own_run():
    """No stage is run by name: each class that behaves differently overrides run (or after)."""
    kinds = {type(s).__name__ for s in STAGES}
    assert kinds == {"ParseStage", "Stage", "NvvmStage", "LlvmStage", "PtxStage", "CubinStage"}
    for s in STAGES:
        assert isinstance(s, Stage)


def test_dynamic_smem_is_reported_by_the_pass_not_the_ir():
    """Two 40 KiB shared buffers exceed the 48 KiB static limit: one dynamic array, its size the pass's report."""
    big = ('"tile.kernel"() ({\n'
           '  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 40960xui8>\n'
           '  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 40960xui8>\n'
           '  "tile.return"() : () -> ()\n'
           '}) {sym_name = "big", block = array<i32: 128, 1, 1>} : () -> ()\n')
    art = compile(big, filename="big", keep=("nvvm",))
    assert art.dynamic_smem == 2 * 40960
    assert "big_dynsmem" in art.asm["nvvm"] and "dynamic_smem" not in art.asm["nvvm"]
