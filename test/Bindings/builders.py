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

    from tile_mlir.driver.compiler import compile
    from tile_mlir.frontend.context import make_context
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
    from tile_mlir.frontend.context import make_context
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


# CHECK-LABEL: TEST: constants_if_else_and_loop
# CHECK:      ^bb0(%{{.+}}: !tile.buffer<global, 32xi32>):
# CHECK-NEXT:   %[[C0:.+]] = arith.constant 0 : i32
# CHECK-NEXT:   %[[C1:.+]] = arith.constant 1 : i32
# CHECK-NEXT:   %[[C4:.+]] = arith.constant 4 : i32
# CHECK-NEXT:   %[[ARG:.+]] = "tile.alloc_shared"()
# CHECK-NEXT:   %[[TID:.+]] = "tile.thread_id"()
# CHECK-NEXT:   %[[T0:.+]] = arith.cmpi eq, %[[TID]], %[[C0]] : i32
# CHECK-NEXT:   scf.if %[[T0]] {
# CHECK-NEXT:     "tile.mbarrier.init"(%[[ARG]]) {count = 1 : i64}
# CHECK-NEXT:   } else {
# CHECK-NEXT:     "tile.mbarrier.arrive"(%[[ARG]])
# CHECK-NEXT:   }
# CHECK-NEXT:   scf.for %[[IV:.+]] = %[[C0]] to %[[C4]] step %[[C1]] : i32 {
# CHECK-NEXT:     arith.muli %[[IV]], %[[C4]] : i32
# CHECK-NEXT:   }
# CHECK-NEXT:   "tile.return"()
# CHECK: verified True
@run
def constants_if_else_and_loop():
    from tile_mlir.frontend.context import make_context
    from tile_mlir.diagnostics import DiagnosticEngine
    from tile_mlir.dialect import builders as tb
    from tile_mlir.dialect.verifier import verify_module
    from tile_mlir.mlir import arith, ir

    ctx = make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        with tb.kernel(module, "k", {"A": tb.buffer_t("global", (32,), "i32")}, block=(32, 1, 1)) as (k, _):
            c = tb.Constants(k.regions[0].blocks[0])
            bar = tb.alloc_shared(tb.buffer_t("shared", (1,), "i64"))
            t0 = arith.cmpi(arith.CmpIPredicate.eq, tb.thread_id(), c(0))  # (made out of order: hoisted sorted)
            with tb.when(t0) as branch:
                tb.mbarrier_init(bar, 1)
            with branch.otherwise():
                tb.mbarrier_arrive(bar)
            with tb.loop(c(0), c(4), c(1)) as iv:
                arith.muli(iv, c(4))
            tb.ret()
    print(module)
    with DiagnosticEngine() as eng:
        print("verified", verify_module(module.operation) and not eng.diagnostics)
