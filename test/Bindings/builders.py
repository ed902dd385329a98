# RUN: %PYTHON %s | FileCheck %s
# The Python builders produce the same program as the tile IR text (examples/demo_builder.py).
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_helper import run  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)
sys.path.insert(0, os.path.join(ROOT, "examples"))


# CHECK-LABEL: TEST: demo_builder_matches_text
# CHECK: verified True
# CHECK: same PTX True
# CHECK: "tile.copy_async"(%{{.+}}, %{{.+}}) {cta_group = 1 : i64, scope = "thread"}
@run
def demo_builder_matches_text():
    from demo_builder import build_demo

    from tile_mlir.compiler import compile
    from tile_mlir.context import make_context
    from tile_mlir.diagnostics import DiagnosticEngine
    from tile_mlir.dialect.verifier import verify_module

    ctx = make_context()
    module = build_demo(ctx)
    with DiagnosticEngine() as eng:
        print("verified", verify_module(module.operation) and not eng.diagnostics)
    text_ptx = compile(open(os.path.join(ROOT, "examples", "demo.mlir")).read()).ptx
    print("same PTX", compile(module, filename="builder").ptx.strip() == text_ptx.strip())
    print([ln for ln in str(module).splitlines() if "copy_async" in ln][0].strip())


# CHECK-LABEL: TEST: builder_rejects_unknown_attribute
# CHECK: caught: tile.commit has no attribute 'group' (has: cta_group, multicast_mask)
@run
def builder_rejects_unknown_attribute():
    from tile_mlir.context import make_context
    from tile_mlir.dialect import builders as tb
    from tile_mlir.mlir import ir

    ctx = make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        with tb.kernel(module, "k", [], block=(32, 1, 1)):
            bar = tb.alloc_shared(tb.buffer_t("shared", (1,), "i64"))
            try:
                tb.build("commit", [bar], group=2)
            except TypeError as e:
                print("caught:", e)
            tb.ret()
