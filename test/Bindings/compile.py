# RUN: %PYTHON %s | FileCheck %s
# tile_mlir.compile: the Artifact of the demo, and diagnostics (never a crash) for bad input.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_helper import run  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)


# CHECK-LABEL: TEST: demo_artifact
# CHECK: kernel demo arch sm_100a block (128, 1, 1) cluster (1, 1, 1) dynamic_smem 0
# CHECK: param A buffer uint8 (32, 16)
# CHECK: param out buffer uint8 (128, 16)
# CHECK: outputs ['out']
# CHECK: ptx .target sm_100a
# CHECK: cubin ELF True
# CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4
@run
def demo_artifact():
    import tile_mlir

    art = tile_mlir.compile(open(os.path.join(ROOT, "examples", "demo.mlir")).read(), arch="sm_100a")
    print("kernel", art.kernel_name, "arch", art.arch, "block", art.block, "cluster", art.cluster,
          "dynamic_smem", art.dynamic_smem)
    for p in art.params:
        print("param", p.name, p.kind, p.dtype, p.shape)
    print("outputs", art.meta["outputs"])
    print("ptx", next(ln for ln in art.ptx.splitlines() if ln.startswith(".target")))
    print("cubin ELF", art.cubin[:4] == b"\x7fELF")
    print(next(ln.strip() for ln in art.ptx.splitlines() if "tcgen05.cp." in ln))


# Sub-byte parameters travel packed: 6-bit rows of 128 elements are 96 bytes; a 10-element 6-bit row
# ends mid-byte, so that buffer is one flat byte array (32 x 10 x 6 bits = 240 bytes).
# CHECK-LABEL: TEST: sub_byte_params
# CHECK: fp6_to_tmem A float6_e3m2fn (32, 96) out uint8 (128, 128)
# CHECK: odd a uint8 (240,)
@run
def sub_byte_params():
    import tile_mlir

    art = tile_mlir.compile(open(os.path.join(ROOT, "examples", "fp6_to_tmem.mlir")).read(), emit=("ptx",))
    print(art.kernel_name, " ".join(f"{p.name} {p.dtype} {p.packed_shape}" for p in art.params))
    odd = ('"tile.kernel"() ({\n^bb0(%a: !tile.buffer<global, 32x10xi6>):\n  "tile.return"() : () -> ()\n'
           '}) {sym_name = "odd", block = array<i32: 32, 1, 1>} : () -> ()\n')
    art = tile_mlir.compile(odd, emit=("ptx",))
    print(art.kernel_name, " ".join(f"{p.name} {p.dtype} {p.packed_shape}" for p in art.params))


# CHECK-LABEL: TEST: bad_input_is_a_diagnostic
# CHECK: caught: lowering failed:
# CHECK-NEXT: bad.mlir:6:3: error: 'tile.copy_async' op dispatch: no copy_async variant applies to shared -> tmem:
# CHECK: smem->tmem: declined: router - tmem rows [(32, 1@TLane)] with no replica fit no tcgen05.cp shape
@run
def bad_input_is_a_diagnostic():
    import tile_mlir

    t = '!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)]">'  # no R[4 : 32@TLane]
    bad = "\n".join([
        '"tile.kernel"() ({',
        '  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8>',
        '  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>',
        '  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()',
        f'  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> {t}',
        f'  "tile.copy_async"(%t, %s) : ({t}, !tile.buffer<shared, 32x16xui8>) -> ()',
        '  "tile.return"() : () -> ()',
        '}) {sym_name = "bad", block = array<i32: 128, 1, 1>} : () -> ()'])
    try:
        tile_mlir.compile(bad, filename="bad.mlir")
    except tile_mlir.TileError as e:
        print("caught:", e)


# CHECK-LABEL: TEST: syntax_error_is_a_diagnostic
# CHECK: caught: parsing failed:
# CHECK-NEXT: broken.mlir:1:10: error: use of undeclared SSA value name
@run
def syntax_error_is_a_diagnostic():
    import tile_mlir

    try:
        tile_mlir.compile('"tile.x"(%q) : (i32) -> ()', filename="broken.mlir")
    except tile_mlir.TileError as e:
        print("caught:", e)


# A rejection by the planner keeps nothing alive (a cached exception once pinned a context per plan):
# the run() helper asserts that no MLIR context outlives this test.
# CHECK-LABEL: TEST: planner_rejection_releases_its_context
# CHECK: caught: smem->tmem: declined: swizzle - row pitch 64 B implies 64B swizzle but the buffer has none
@run
def planner_rejection_releases_its_context():
    import tile_mlir

    text = open(os.path.join(ROOT, "test", "Conversion", "TileToNVVM",
                             "copy-async-tcgen05-cp-invalid.mlir")).read().split("// -----")[5]
    for _ in range(3):
        try:
            tile_mlir.compile(text, filename="invalid.mlir")
        except tile_mlir.TileError as e:
            msg = next(ln.strip() for ln in e.diagnostics[0].message.splitlines() if "smem->tmem" in ln)
    print("caught:", msg)
