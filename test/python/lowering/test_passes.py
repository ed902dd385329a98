"""The pass base, the registry and the dispatch passes' rewrite pattern (lowering/dispatch_pass.py)."""
import os
import subprocess
import sys

import pytest

from tile_mlir.frontend.context import make_context, parse_source
from tile_mlir.diagnostics import DiagnosticEngine
from tile_mlir.driver.passes import PIPELINES, PipelineError, build_pass_manager, run_pass_manager
from tile_mlir.driver.stages import STAGE_NAMES, passes_through

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEMO = open(os.path.join(ROOT, "examples", "demo.mlir")).read()


def _run(pipeline, text=DEMO):
    ctx = make_context()
    engine = DiagnosticEngine()
    engine.attach(ctx)
    module = parse_source(text, "k.mlir", ctx)
    with engine:
        ok = run_pass_manager(build_pass_manager(pipeline, ctx), module, ctx, engine)
    engine.detach()
    return ok, engine.diagnostics, module


def test_an_exception_inside_the_pattern_is_a_diagnostic_at_the_op(monkeypatch):
    from tile_mlir.lowering.copy_async.pass_ import LowerCopyAsyncPass

    def boom(self, op, cache):
        raise RuntimeError("raised inside the pattern")

    monkeypatch.setattr(LowerCopyAsyncPass, "context", boom)
    ok, diags, module = _run("tile-verify,tile-lower-copy-async")
    line = next(i for i, s in enumerate(DEMO.split("\n"), 1) if '"tile.copy_async"' in s)
    assert not ok and len(diags) == 1
    d = diags[0]
    assert (d.severity, d.file, d.line) == ("error", "k.mlir", line)
    assert d.message.startswith("'tile.copy_async' op dispatch: internal error in pass 'tile-lower-copy-async': "
                                "RuntimeError: raised inside the pattern (at test_passes.py:")
    assert '"tile.copy_async"' in str(module)  # the op stays


def test_an_exception_inside_the_pattern_does_not_abort_the_process():
    code = ("import tile_mlir.lowering.copy_async.pass_ as p, tile_mlir\n"
            "p.LowerCopyAsyncPass.context = lambda self, op, cache: 1 / 0\n"
            f"try:\n    tile_mlir.compile(open({os.path.join(ROOT, 'examples', 'demo.mlir')!r}).read())\n"
            "except tile_mlir.TileError as e:\n    print('TileError', 'ZeroDivisionError' in str(e))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    assert (run.returncode, run.stdout) == (0, "TileError True\n"), run.stderr
    assert "terminate called" not in run.stderr


def test_each_failing_op_is_reported_once_in_line_order():
    bad = DEMO.replace('{cta_group = 1, scope = "thread"}', '{cta_group = 1, scope = "thread", dispatch = "nope"}')
    # two failing copies around a good one
    lines = bad.split("\n")
    i = next(k for k, s in enumerate(lines) if '"tile.copy_async"' in s)
    good = lines[i].replace(', dispatch = "nope"', "")
    text = "\n".join(lines[:i + 1] + [good, lines[i]] + lines[i + 1:])
    ok, diags, _ = _run("tile-verify,tile-lower-copy-async", text)
    assert not ok
    assert [d.line for d in diags] == [i + 1, i + 3]
    assert all("dispatch = \"nope\"" in d.message for d in diags)


def test_pipeline_aliases_are_spelled_from_the_stages():
    assert STAGE_NAMES == ("parse", "verify", "dispatch", "nvvm", "llvm", "ptx", "cubin")
    assert PIPELINES["tile-to-nvvm"][0] == ",".join(passes_through("llvm"))
    assert PIPELINES["tile-to-ptx"][0] == PIPELINES["tile-to-nvvm"][0] + ",gpu-module-to-binary{format=isa}"


def test_typed_option_is_read_when_the_pipeline_is_built():
    with pytest.raises(PipelineError, match=r"pass 'tile-lower-copy-async': option chip: unknown GPU architecture"):
        build_pass_manager("tile-lower-copy-async{chip=sm_91x}", make_context())
    with pytest.raises(PipelineError, match="has no option"):
        build_pass_manager("tile-lower-copy-async{nope=1}", make_context())


def test_passes_imports_no_pass_module_by_string():
    src = open(os.path.join(ROOT, "python", "tile_mlir", "driver", "passes.py")).read()
    assert "importlib" not in src
