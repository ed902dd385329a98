"""The tutorial's steps written with the public Python builders (issue 35 item 6): each script of
examples/tutorial/ builds the kernel of its .mlir twin, compiled to the same PTX (debug lines aside), run on
tile-sim with its data checked; the ops are located at the Python lines that built them; demo_builder.py
uses the public API alone."""
from __future__ import annotations

import ast
import importlib.util
import pathlib
import re

import pytest

import tile_mlir

ROOT = pathlib.Path(__file__).resolve().parents[3]
STEPS = ROOT / "examples" / "tutorial"
NAMES = ["step1_copy", "step2_tmem", "step3_tma", "step4_gemm"]


def _load(path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(f"_tutorial_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _code(ptx: str) -> list[str]:
    """The PTX without its debug directives, comments and blank lines."""
    return [ln for ln in ptx.splitlines() if ln.strip() and not re.match(r"\s*(//|\.loc|\.file|\.section)", ln)]


@pytest.mark.parametrize("name", NAMES)
def test_builder_step_is_its_mlir_twin_and_runs(name):
    step = _load(STEPS / f"{name}.py")
    module = step.build()
    built = tile_mlir.compile(module, emit=("ptx",))
    text = tile_mlir.compile(str(STEPS / f"{name}.mlir"), emit=("ptx",))
    assert _code(built.ptx) == _code(text.ptx)
    assert [p.name for p in built.params] == [p.name for p in text.params]
    values, check = step.inputs()
    tile_mlir.jit(module, backend="sim")(**values)
    assert check(values)


def test_builder_ops_are_located_at_their_python_lines():
    step = _load(STEPS / "step1_copy.py")
    text = step.build().operation.get_asm(enable_debug_info=True)
    src = (STEPS / "step1_copy.py").read_text().splitlines()
    line = next(i for i, ln in enumerate(src, 1) if "tb.barrier()" in ln)
    assert f'step1_copy.py":{line}:1' in text


@pytest.mark.parametrize("path", [ROOT / "examples" / "demo_builder.py", *(STEPS / f"{n}.py" for n in NAMES)],
                         ids=lambda p: p.name)
def test_builder_scripts_use_the_public_api_alone(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tile_mlir"):
            assert node.module in ("tile_mlir",) and all(a.name == "builders" for a in node.names), ast.dump(node)
        if isinstance(node, ast.Import):
            assert all(not a.name.startswith("tile_mlir.") for a in node.names)
        if isinstance(node, ast.Attribute) and node.attr == "path" and getattr(node.value, "id", "") == "sys":
            raise AssertionError(f"{path.name} edits sys.path")
    fences = re.findall(r'tb\.fence\("(\w+)"\)', path.read_text())
    assert not fences, fences  # every fence is the compiler's (docs/fences.md), the mbarrier init one too


def test_const_and_comparisons():
    from tile_mlir import builders as tb

    with tb.module() as m:
        with tb.kernel(m.module, "k", {"n": tb.buffer_t("global", (4,), "i32")}, block=(32, 1, 1)):
            x = tb.const(7)
            y = tb.const(1, "i64")
            t = tb.const(True)
            c = tb.lt(tb.thread_id(), 3)
            s = tb.add(x, 2)
            tb.ret()
    assert str(x.type) == "i32" and str(y.type) == "i64" and str(t.type) == "i1" and str(c.type) == "i1"
    assert "arith.addi" in str(m) and "arith.cmpi slt" in str(m) and str(s.type) == "i32"
    with pytest.raises(ValueError, match="const type must be one of"):
        with tb.module():
            tb.const(1, "f16")
    with tb.module():  # the scalars of the tile.reg ops
        f, i, g = tb.const(0.5), tb.const(3, "index"), tb.const(2, "f32")
        assert (str(f.type), str(i.type), str(g.type)) == ("f32", "index", "f32")


def test_wait_parity_follows_the_loop_counter():
    """The tutorial's K-loop snippet: one load barrier reused every step, waited on with the step's parity."""
    import ml_dtypes
    import numpy as np

    from tile_mlir import builders as tb

    with tb.module() as m:
        g, go = tb.buffer_t("global", (128, 64), "bf16"), tb.buffer_t("global", (64, 64), "bf16")
        s = tb.buffer_t("shared", (64, 64), "bf16", "Swizzle<128B> o S[(64, 64) : (64, 1)]", align=1024)
        with tb.kernel(m.module, "kloop", {"A": g, "out": go}, block=(128, 1, 1)) as (_, (a, out)):
            tb.tensor_map(a, box=[64, 64], swizzle="128B")
            tb.tensor_map(out, box=[64, 64], swizzle="128B")
            sa, loaded = tb.alloc_shared(s), tb.alloc_shared(tb.buffer_t("shared", (1,), "i64"))
            is_thread0 = tb.eq(tb.thread_id(), 0)
            with tb.when(is_thread0):
                tb.mbarrier_init(loaded, 1)
                tb.fence("mbarrier_init")
            tb.barrier()
            with tb.loop(tb.const(0), tb.const(3), tb.const(1)) as k:
                with tb.when(is_thread0):
                    tb.mbarrier_arrive_expect_tx(loaded, 64 * 64 * 2)
                    tb.copy_async(sa, a, loaded, src_region=[(64, 128), (0, 64)], scope="thread")
                tb.mbarrier_wait_parity(loaded, k)
                tb.barrier()
            with tb.when(is_thread0):
                tb.copy_async(out, sa, scope="thread")
                tb.bulk_wait(0)
            tb.ret()
    a = np.random.default_rng(0).standard_normal((128, 64)).astype(ml_dtypes.bfloat16)
    o = np.zeros((64, 64), ml_dtypes.bfloat16)
    tile_mlir.jit(m.module, backend="sim")(A=a, out=o)
    assert np.array_equal(o, a[64:])
