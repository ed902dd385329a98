"""The tile verifier through the Python API: parse, verify_module inside a DiagnosticEngine, and look at
the collected diagnostics (check name, line, column). Also: every OP_SPECS op has a valid example."""
from __future__ import annotations

import re

import pytest

from tile_mlir.frontend.context import make_context, parse_source
from tile_mlir.diagnostics import DiagnosticEngine
from tile_mlir.dialect.ops import OP_SPECS, Trait
from tile_mlir.dialect.verifier import verify_module

_DIAG = re.compile(r"^'(?P<op>tile\.[\w.]+)' op (?P<check>[\w-]+): ")

SLOT = "!tile.buffer<shared, 1xi32>"
BAR = "!tile.buffer<shared, 1xi64>"
SMEM = '!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>'
TMEM = '!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">'


def kernel(body: str, *, params: str = "", attrs: str = 'block = array<i32: 128, 1, 1>', name: str = "k") -> str:
    """A tile.kernel around `body` (lines indented by two); the body starts on line 3."""
    head = f"^bb0({params}):" if params else "// no parameters"
    return (f'"tile.kernel"() ({{\n{head}\n{body}\n  "tile.return"() : () -> ()\n'
            f'}}) {{sym_name = "{name}", {attrs}}} : () -> ()\n')


def verify(text: str):
    """(ok, [(op, check, line, col, message)]) for `text`."""
    ctx = make_context()
    engine = DiagnosticEngine()
    engine.attach(ctx)
    with engine:
        module = parse_source(text, "input.mlir", ctx)
        with ctx:
            ok = verify_module(module)
    engine.detach()
    out = []
    for d in engine.diagnostics:
        m = _DIAG.match(d.message)
        out.append((m.group("op") if m else None, m.group("check") if m else None, d.line, d.col, d.message))
    return ok, out


# (id, text, op, check, line, col): exactly one error, at that line and column
BAD = [
    ("launch-shape", kernel("", attrs="block = array<i32: 2048, 1, 1>"), "tile.kernel", "launch-shape", 1, 1),
    ("cluster", kernel("", attrs="block = array<i32: 32, 1, 1>, cluster = array<i32: 17, 1, 1>"),
     "tile.kernel", "launch-shape", 1, 1),
    ("parameter", kernel("", params="%x: f16"), "tile.kernel", "parameter", 1, 1),
    ("cluster-rank", kernel("", attrs="block = array<i32: 32, 1, 1>, cluster = array<i32: 2, 1>"),
     "tile.kernel", "attributes", 1, 1),
    ("missing-sym-name", '"tile.kernel"() ({\n  "tile.return"() : () -> ()\n}) {block = array<i32: 32, 1, 1>} : () -> ()\n',
     "tile.kernel", "attributes", 1, 1),
    ("unknown-attribute", kernel('  "tile.barrier"() {when = 1} : () -> ()'), "tile.barrier", "attributes", 3, 3),
    ("bad-choice", kernel('  "tile.fence"() {kind = "full"} : () -> ()'), "tile.fence", "attributes", 3, 3),
    ("wrong-kind", kernel('  "tile.barrier"() {scope = 1} : () -> ()'), "tile.barrier", "attributes", 3, 3),
    ("operand-scope", kernel(f'  "tile.mbarrier.arrive"(%g) : (!tile.buffer<global, 1xi64>) -> ()',
                             params="%g: !tile.buffer<global, 1xi64>"), "tile.mbarrier.arrive", "operand-scope", 3, 3),
    ("operand-type", kernel(f'  %s = "tile.alloc_shared"() : () -> {BAR}\n'
                            f'  "tile.tmem.alloc"(%s) {{num_cols = 32}} : ({BAR}) -> ()'),
     "tile.tmem.alloc", "operand-type", 4, 3),
    ("tmem-alloc", kernel(f'  %s = "tile.alloc_shared"() : () -> {SLOT}\n'
                          f'  "tile.tmem.alloc"(%s) {{num_cols = 48}} : ({SLOT}) -> ()'), "tile.tmem.alloc", "tmem-alloc", 4, 3),
    ("mbarrier", kernel(f'  %b = "tile.alloc_shared"() : () -> {BAR}\n'
                        f'  "tile.mbarrier.init"(%b) {{count = 0}} : ({BAR}) -> ()'), "tile.mbarrier.init", "mbarrier", 4, 3),
    ("buffer-type", kernel('  %s = "tile.alloc_shared"() : () -> !tile.buffer<smem, 4xi32>'),
     "tile.alloc_shared", "buffer-type", 3, 8),
    ("layout", kernel('  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x4xi32, "S[(4, 2) : (2, 1)]">'),
     "tile.alloc_shared", "layout", 3, 8),
    ("swizzle-alignment", kernel('  %s = "tile.alloc_shared"() : () -> '
                                 '!tile.buffer<shared, 8x128xui8, "Swizzle<128B> o S[(8, 128) : (128, 1)]", align 256>'),
     "tile.alloc_shared", "swizzle-alignment", 3, 8),
    ("element-type", kernel(f'  %s = "tile.alloc_shared"() : () -> {SLOT}\n'
                            f'  "tile.tmem.alloc"(%s) {{num_cols = 32}} : ({SLOT}) -> ()\n'
                            f'  %t = "tile.tmem.buffer"(%s) : ({SLOT}) -> !tile.buffer<tmem, 32x2xi64, "S[(32, 2) : (1@TLane, 1@TCol)]">'),
     "tile.tmem.buffer", "element-type", 5, 8),
    ("region-rank", kernel(f'  %s = "tile.alloc_shared"() : () -> {SMEM}\n'
                           f'  "tile.copy"(%s, %g) {{src_sizes = array<i64: 512>}} : ({SMEM}, !tile.buffer<global, 32x16xui8>) -> ()',
                           params="%g: !tile.buffer<global, 32x16xui8>"), "tile.copy", "region-rank", 4, 3),
    ("region-in-bounds", kernel(f'  %s = "tile.alloc_shared"() : () -> {SMEM}\n'
                                f'  "tile.copy"(%s, %g) {{src_offsets = array<i64: 1, 0>, src_sizes = array<i64: 32, 16>}} : ({SMEM}, !tile.buffer<global, 32x16xui8>) -> ()',
                                params="%g: !tile.buffer<global, 32x16xui8>"), "tile.copy", "region-in-bounds", 4, 3),
    ("region-size", kernel(f'  %s = "tile.alloc_shared"() : () -> {SMEM}\n'
                           f'  "tile.copy"(%s, %g) : ({SMEM}, !tile.buffer<global, 16x16xui8>) -> ()',
                           params="%g: !tile.buffer<global, 16x16xui8>"), "tile.copy", "region-size", 4, 3),
    ("tmem-load", kernel(f'  %s = "tile.alloc_shared"() : () -> {SLOT}\n'
                         f'  "tile.tmem.alloc"(%s) {{num_cols = 32}} : ({SLOT}) -> ()\n'
                         f'  %t = "tile.tmem.buffer"(%s) : ({SLOT}) -> {TMEM}\n'
                         f'  "tile.tmem.load"(%o, %t) {{num_cols = 4}} : (!tile.buffer<global, 64x16xui8>, {TMEM}) -> ()',
                         params="%o: !tile.buffer<global, 64x16xui8>"), "tile.tmem.load", "tmem-load", 6, 3),
    ("tmem-address", kernel(f'  %s = "tile.alloc_shared"() : () -> {SLOT}\n'
                            f'  %t = "tile.tmem.buffer"(%s) : ({SLOT}) -> {TMEM}'), "tile.tmem.buffer", "tmem-address", 4, 8),
    ("cta-group", kernel(f'  %b = "tile.alloc_shared"() : () -> {BAR}\n'
                         f'  "tile.commit"(%b) {{cta_group = 2}} : ({BAR}) -> ()'), "tile.commit", "cta-group", 4, 3),
    ("body", '"tile.kernel"() ({\n  "tile.barrier"() : () -> ()\n}) {sym_name = "k", block = array<i32: 32, 1, 1>} : () -> ()\n',
     "tile.kernel", "body", 1, 1),
    ("regions", kernel('  "tile.fence"() ({\n  }) {kind = "proxy_async"} : () -> ()'), "tile.fence", "regions", 3, 3),
    ("results", kernel('  %a, %b = "tile.lane_id"() : () -> (i32, i32)'), "tile.lane_id", "results", 3, 12),
    ("result-type", kernel('  %a = "tile.elect_one"() : () -> i32'), "tile.elect_one", "result-type", 3, 8),
    ("placement", 'func.func @f() {\n  "tile.async_wait"() : () -> ()\n  return\n}\n', "tile.async_wait", "placement", 2, 3),
]


@pytest.mark.parametrize("text,op,check,line,col", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_reports_one_located_error(text, op, check, line, col):
    ok, diags = verify(text)
    assert not ok
    assert [(d[0], d[1], d[2], d[3]) for d in diags] == [(op, check, line, col)], diags


def test_unknown_op_is_reported_with_the_known_ones():
    ok, diags = verify(kernel('  "tile.frob"() : () -> ()'))
    assert not ok and len(diags) == 1
    assert diags[0][2:4] == (3, 3)
    assert "unknown tile operation 'tile.frob'" in diags[0][4] and "tile.copy_async" in diags[0][4]


def test_one_error_per_bad_op_and_the_rest_still_checked():
    text = kernel('  "tile.fence"() {kind = "x"} : () -> ()\n  "tile.barrier"() {scope = "x"} : () -> ()\n'
                  '  "tile.fence"() {kind = "proxy_async"} : () -> ()')
    ok, diags = verify(text)
    assert not ok
    assert [(d[0], d[2]) for d in diags] == [("tile.fence", 3), ("tile.barrier", 4)]


def test_without_an_engine_errors_go_to_mlir():
    ctx = make_context()
    module = parse_source(kernel('  "tile.fence"() : () -> ()'), "input.mlir", ctx)
    seen = []
    handle = ctx.attach_diagnostic_handler(lambda d: seen.append(str(d.message)) or True)
    with ctx:
        assert not verify_module(module)
    handle.detach()
    assert seen == ["'tile.fence' op attributes: requires attribute 'kind'"]


# -- a valid example of every op ------------------------------------------------------------------
GEMM_A = '!tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 512, 1)]">'
GEMM_B = '!tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 512, 1)]">'
GEMM_A8 = '!tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>'
GEMM_B8 = '!tile.buffer<shared, 128x32xf8E4M3FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 256>'
GEMM_D = '!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">'
GEMM_SF = '!tile.buffer<tmem, 128x1xf8E8M0FNU, "S[(4, 32) : (4@TCol, 1@TLane)] + R[4 : 32@TLane]">'

RT = '!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">'  # a register tile and its row values
RR = '!tile.buffer<reg, 32x1xf32, "S[(32, 1) : (1@laneid, 1@reg)]">'


def reg_kernel(line: str) -> str:
    """A kernel with register tiles %a, %b (RT), %r (RR), an f32 %c and an index %i before `line`."""
    return kernel(f'  %a = "tile.alloc_reg"() : () -> {RT}\n  %b = "tile.alloc_reg"() : () -> {RT}\n'
                  f'  %r = "tile.alloc_reg"() : () -> {RR}\n  %c = arith.constant 0.5 : f32\n'
                  f'  %i = arith.constant 3 : index\n{line}')


VALID = {
    "kernel": kernel("", params="%a: !tile.buffer<global, 4xf32>, %n: i32, %m: i64, %x: f32",
                     attrs="block = array<i32: 32, 2, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 8, 1, 1>"),
    "return": kernel(""),
    "thread_id": kernel('  %v = "tile.thread_id"() : () -> i32'),
    "warp_id": kernel('  %v = "tile.warp_id"() : () -> i32'),
    "lane_id": kernel('  %v = "tile.lane_id"() : () -> i32'),
    "cta_rank": kernel('  %v = "tile.cta_rank"() : () -> i32'),
    "elect_one": kernel('  %v = "tile.elect_one"() : () -> i1'),
    "alloc_shared": kernel(f'  %s = "tile.alloc_shared"() : () -> {SMEM}'),
    "copy": kernel(f'  %s = "tile.alloc_shared"() : () -> {SMEM}\n'
                   f'  "tile.copy"(%s, %g) {{scope = "warpgroup", dst_offsets = array<i64: 0, 0>, dst_sizes = array<i64: 32, 16>,'
                   f' src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 16>}} : ({SMEM}, !tile.buffer<global, 32x16xui8>) -> ()',
                   params="%g: !tile.buffer<global, 32x16xui8>"),
    "block_id": kernel('  %x = "tile.block_id"() {dim = "y"} : () -> i32'),
    "grid_dim": kernel('  %n = "tile.grid_dim"() {dim = "x"} : () -> i32'),
    "subview": kernel('  %r = "tile.block_id"() {dim = "y"} : () -> i32\n'
                      '  %w = "tile.subview"(%g, %r) {static_offsets = array<i64: -1, 0>, sizes = array<i64: 8, 16>} : '
                      '(!tile.buffer<global, 32x16xui8>, i32) -> !tile.buffer<global, 8x16xui8, "S[(8, 16) : (16, 1)]">',
                      params="%g: !tile.buffer<global, 32x16xui8>"),
    "reinterpret": kernel('  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, align 128>\n'
                          '  %v = "tile.reinterpret"(%s) : (!tile.buffer<shared, 32x16xui8, align 128>) -> '
                          '!tile.buffer<shared, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4, 16, 1)]", align 128>'),
    "fence": kernel('  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()'),
    "barrier": kernel('  "tile.barrier"() {scope = "cluster"} : () -> ()', attrs="block = array<i32: 32, 1, 1>, cluster = array<i32: 2, 1, 1>"),
    "tmem.alloc": kernel(f'  %s = "tile.alloc_shared"() : () -> {SLOT}\n'
                         f'  "tile.tmem.alloc"(%s) {{num_cols = 512, cta_group = 1}} : ({SLOT}) -> ()'),
    "tmem.relinquish": kernel('  "tile.tmem.relinquish"() {cta_group = 2} : () -> ()',
                              attrs="block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>"),
    "tmem.dealloc": kernel(f'  %s = "tile.alloc_shared"() : () -> {SLOT}\n'
                           f'  "tile.tmem.dealloc"(%s) {{num_cols = 32}} : ({SLOT}) -> ()'),
    "tmem.buffer": kernel(f'  %s = "tile.alloc_shared"() : () -> {SLOT}\n'
                          f'  "tile.tmem.alloc"(%s) {{num_cols = 32}} : ({SLOT}) -> ()\n'
                          f'  %t = "tile.tmem.buffer"(%s) : ({SLOT}) -> {TMEM}'),
    "copy_async": kernel(f'  %m = "tile.alloc_shared"() : () -> {SMEM}\n'
                         f'  %s = "tile.alloc_shared"() : () -> {SLOT}\n'
                         f'  "tile.tmem.alloc"(%s) {{num_cols = 32}} : ({SLOT}) -> ()\n'
                         f'  %t = "tile.tmem.buffer"(%s) : ({SLOT}) -> {TMEM}\n'
                         f'  "tile.copy_async"(%t, %m) {{cta_group = 1, scope = "thread", dispatch = "smem->tmem"}} : ({TMEM}, {SMEM}) -> ()'),
    "commit": kernel(f'  %b = "tile.alloc_shared"() : () -> {BAR}\n'
                     f'  "tile.commit"(%b) {{cta_group = 1, multicast_mask = 1}} : ({BAR}) -> ()'),
    "async_wait": kernel('  "tile.async_wait"() : () -> ()'),
    "mbarrier.init": kernel(f'  %b = "tile.alloc_shared"() : () -> {BAR}\n'
                            f'  "tile.mbarrier.init"(%b) {{count = 1}} : ({BAR}) -> ()'),
    "mbarrier.arrive": kernel(f'  %b = "tile.alloc_shared"() : () -> {BAR}\n'
                              f'  "tile.mbarrier.arrive"(%b) : ({BAR}) -> ()'),
    "tensor_map": kernel('  %m = "tile.tensor_map"(%a) {box = array<i64: 8, 64>, swizzle = "128B"} : '
                         '(!tile.buffer<global, 16x64xui8>) -> !tile.tensormap',
                         params="%a: !tile.buffer<global, 16x64xui8>"),
    "tensor_map.prefetch": kernel('  %m = "tile.tensor_map"(%a) {box = array<i64: 8, 64>} : '
                                  '(!tile.buffer<global, 16x64xui8>) -> !tile.tensormap\n'
                                  '  "tile.tensor_map.prefetch"(%m) : (!tile.tensormap) -> ()',
                                  params="%a: !tile.buffer<global, 16x64xui8>"),
    "mbarrier.arrive_expect_tx": kernel(f'  %b = "tile.alloc_shared"() : () -> {BAR}\n'
                                        f'  "tile.mbarrier.arrive_expect_tx"(%b) {{bytes = 1024}} : ({BAR}) -> ()'),
    "mbarrier.expect_tx": kernel(f'  %b = "tile.alloc_shared"() : () -> {BAR}\n'
                                 f'  "tile.mbarrier.expect_tx"(%b) {{bytes = 1024}} : ({BAR}) -> ()'),
    "bulk_wait": kernel('  "tile.bulk_wait"() {pending = 1, kind = "read"} : () -> ()'),
    "mbarrier.wait": kernel(f'  %b = "tile.alloc_shared"() : () -> {BAR}\n'
                            f'  "tile.mbarrier.wait"(%b) {{phase = 1}} : ({BAR}) -> ()'),
    "ring.stage": kernel(f'  %b0 = "tile.alloc_shared"() : () -> {BAR}\n'
                         f'  %b1 = "tile.alloc_shared"() : () -> {BAR}\n'
                         f'  %i = "tile.thread_id"() : () -> i32\n'
                         f'  %b = "tile.ring.stage"(%i, %b0, %b1) : (i32, {BAR}, {BAR}) -> {BAR}'),
    "mbarrier.wait_parity": kernel(f'  %b = "tile.alloc_shared"() : () -> {BAR}\n'
                                   f'  %p = "tile.thread_id"() : () -> i32\n'
                                   f'  "tile.mbarrier.wait_parity"(%b, %p) : ({BAR}, i32) -> ()'),
    "raster.grouped": kernel('  %t = "tile.block_id"() {dim = "x"} : () -> i32\n'
                             '  %r, %c = "tile.raster.grouped"(%t, %m, %n) {group_m = 8} : (i32, i32, i32) -> (i32, i32)',
                             params="%m: i32, %n: i32"),
    "setmaxnreg": kernel('  "tile.setmaxnreg"() {action = "inc", count = 232} : () -> ()'),
    "tmem.load": kernel(f'  %s = "tile.alloc_shared"() : () -> {SLOT}\n'
                        f'  "tile.tmem.alloc"(%s) {{num_cols = 32}} : ({SLOT}) -> ()\n'
                        f'  %t = "tile.tmem.buffer"(%s) : ({SLOT}) -> {TMEM}\n'
                        f'  "tile.tmem.load"(%o, %t) {{num_cols = 4, col_offset = 0, scope = "warpgroup"}} : '
                        f'(!tile.buffer<global, 128x16xui8>, {TMEM}) -> ()',
                        params="%o: !tile.buffer<global, 128x16xui8>"),
    "gemm_async": kernel(f'  %a = "tile.alloc_shared"() : () -> {GEMM_A}\n'
                         f'  %b = "tile.alloc_shared"() : () -> {GEMM_B}\n'
                         f'  %s = "tile.alloc_shared"() : () -> {SLOT}\n'
                         f'  "tile.tmem.alloc"(%s) {{num_cols = 128}} : ({SLOT}) -> ()\n'
                         f'  %d = "tile.tmem.buffer"(%s) : ({SLOT}) -> {GEMM_D}\n'
                         f'  %acc = arith.constant true\n'
                         f'  "tile.gemm_async"(%d, %a, %b, %acc) {{cta_group = 1, scope = "thread"}} : '
                         f'({GEMM_D}, {GEMM_A}, {GEMM_B}, i1) -> ()'),
    "gemm_async.block_scale": kernel(
        f'  %a = "tile.alloc_shared"() : () -> {GEMM_A8}\n  %b = "tile.alloc_shared"() : () -> {GEMM_B8}\n'
        f'  %s = "tile.alloc_shared"() : () -> {SLOT}\n  "tile.tmem.alloc"(%s) {{num_cols = 256}} : ({SLOT}) -> ()\n'
        f'  %d = "tile.tmem.buffer"(%s) : ({SLOT}) -> {GEMM_D}\n  %f = "tile.tmem.buffer"(%s) : ({SLOT}) -> {GEMM_SF}\n'
        f'  %acc = arith.constant false\n'
        f'  "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %f, %f) {{scale_vec = 32}} : '
        f'({GEMM_D}, {GEMM_A8}, {GEMM_B8}, i1, {GEMM_SF}, {GEMM_SF}) -> ()'),
    "gemm_wait": kernel('  "tile.gemm_wait"() {pending = 1} : () -> ()'),
    "alloc_reg": kernel('  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x8xf32, "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]">'),
    "convert": kernel('  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">\n'
                      '  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x8xbf16, "S[(32, 8) : (1@laneid, 1@reg)]">\n'
                      '  "tile.convert"(%b, %a) {rounding = "rn"} : (!tile.buffer<reg, 32x8xbf16, "S[(32, 8) : (1@laneid, 1@reg)]">, '
                      '!tile.buffer<reg, 32x8xf32, "S[(32, 8) : (1@laneid, 1@reg)]">) -> ()'),
    "named_barrier.sync": kernel('  "tile.named_barrier.sync"() {id = 1, count = 128} : () -> ()'),
    "named_barrier.arrive": kernel('  %w = "tile.warp_id"() : () -> i32\n'
                                   '  "tile.named_barrier.arrive"(%w) {id = 1, count = 128} : (i32) -> ()'),
    "semaphore.arrive": kernel('  %n = arith.constant 2 : i32\n'
                               '  %l = "tile.semaphore.arrive"(%c, %n) {id = 1, count = 128} : '
                               '(!tile.buffer<global, 1xi32>, i32) -> i1', params="%c: !tile.buffer<global, 1xi32>"),
    "reg.fill": reg_kernel(f'  "tile.reg.fill"(%a, %c) : ({RT}, f32) -> ()'),
    "reg.neg": reg_kernel(f'  "tile.reg.neg"(%a, %b) : ({RT}, {RT}) -> ()'),
    "reg.exp2": reg_kernel(f'  "tile.reg.exp2"(%a, %b, %c, %r) : ({RT}, {RT}, f32, {RR}) -> ()'),
    "reg.lg2": reg_kernel(f'  "tile.reg.lg2"(%r, %r) : ({RR}, {RR}) -> ()'),
    "reg.rcp": reg_kernel(f'  "tile.reg.rcp"(%a, %b) {{mode = "rn"}} : ({RT}, {RT}) -> ()'),
    "reg.add": reg_kernel(f'  "tile.reg.add"(%a, %b, %r) : ({RT}, {RT}, {RR}) -> ()'),
    "reg.sub": reg_kernel(f'  "tile.reg.sub"(%a, %b, %r) : ({RT}, {RT}, {RR}) -> ()'),
    "reg.mul": reg_kernel(f'  "tile.reg.mul"(%a, %a, %b) : ({RT}, {RT}, {RT}) -> ()'),
    "reg.max": reg_kernel(f'  "tile.reg.max"(%a, %b, %r) : ({RT}, {RT}, {RR}) -> ()'),
    "reg.min": reg_kernel(f'  "tile.reg.min"(%a, %b, %r) : ({RT}, {RT}, {RR}) -> ()'),
    "reg.fma": reg_kernel(f'  "tile.reg.fma"(%a, %b, %r, %a) : ({RT}, {RT}, {RR}, {RT}) -> ()'),
    "reg.select": reg_kernel(f'  "tile.reg.select"(%a, %b, %r, %a, %b) {{predicate = "gt"}} : '
                             f'({RT}, {RT}, {RR}, {RT}, {RT}) -> ()'),
    "reg.mask": reg_kernel(f'  "tile.reg.mask"(%a, %b, %i) {{kind = "causal"}} : ({RT}, {RT}, index) -> ()'),
    "reg.reduce": reg_kernel(f'  "tile.reg.reduce"(%r, %b) {{kind = "max", axis = 1}} : ({RR}, {RT}) -> ()'),
}


def test_every_op_has_a_valid_example():
    assert set(VALID) == {s.name for s in OP_SPECS}


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_example_verifies(name):
    text = VALID[name]
    assert f'"tile.{name}"' in text
    ok, diags = verify(text)
    assert ok and diags == [], diags


def test_ops_with_a_cta_group_are_tcgen05_ops():
    """The one-cta_group-per-kernel check reaches an op by its Tcgen05 trait; copy_async's and
    gemm_async's own verifiers apply it when the copy goes to (the accumulator is in) tensor memory."""
    with_cta_group = {s.name for s in OP_SPECS if any(a.name == "cta_group" for a in s.attrs)}
    tcgen05 = {s.name for s in OP_SPECS if Trait.TCGEN05 in s.traits}
    assert with_cta_group - tcgen05 == {"copy_async", "gemm_async", "gemm_async.block_scale"}


# -- issue #10: what reached the lowering unverified (each was a crash, an internal error or wrong PTX) --
def test_a_use_outside_its_region_is_reported():
    # text cannot spell it (the parser scopes names by region); IR built in Python can
    text = kernel('  %t = "tile.thread_id"() : () -> i32\n  %c0 = arith.constant 0 : i32\n'
                  '  %first = arith.cmpi eq, %t, %c0 : i32\n  scf.if %first {\n'
                  '    %inner = arith.addi %t, %t : i32\n  }\n  %x = arith.addi %t, %t : i32')
    ctx = make_context()
    engine = DiagnosticEngine()
    engine.attach(ctx)
    with engine:
        module = parse_source(text, "input.mlir", ctx)
        with ctx:
            body = module.regions[0].blocks[0].operations[0].regions[0].blocks[0]
            ops = [op.operation for op in body.operations]
            t, if_op, x = ops[0], ops[3], ops[4]
            inner = next(iter(if_op.regions[0].blocks[0].operations)).operation
            x.replace_uses_of_with(t.results[0], inner.results[0])
            assert not verify_module(module)
    engine.detach()
    assert [(d.line, d.message) for d in engine.diagnostics] == [
        (9, f"operand #{i} of 'arith.addi' is used before its definition") for i in (0, 1)]


def test_compile_rejects_a_crafted_kernel_name_instead_of_injecting_ir():
    import tile_mlir
    from tile_mlir import TileError

    # the name once went into IR text: this one set .reqntid 1,1,1 and added trap; to the PTX
    name = 'k", nvvm.reqntid = array<i32: 1, 1, 1>} {\\n llvm.inline_asm has_side_effects "trap;", "" : () -> ()'
    with pytest.raises(TileError, match="verification failed:\n.*kernel-name: sym_name"):
        tile_mlir.compile(kernel("", name=name.replace('"', '\\"')), emit=("ptx",))


@pytest.mark.parametrize("text, message", [
    (kernel("", attrs="block = array<si32: 128, 1, 1>"), "attribute 'block' must be array<i32: x, y, z>"),
    (kernel('  "tile.copy"(%s, %g) : (!tile.buffer<shared, 4xi8>, !tile.buffer<global, 4xi8>) -> ()\n'
            '  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4xi8>', params="%g: !tile.buffer<global, 4xi8>"),
     "operand #0 of 'tile.copy' is used before its definition"),
    (kernel('  "tiel.copy"(%g) : (!tile.buffer<global, 4xi8>) -> ()', params="%g: !tile.buffer<global, 4xi8>"),
     "op 'tiel.copy' of an unknown dialect uses tile buffers; did you mean 'tile.copy'?"),
], ids=["signed-block", "use-before-definition", "misspelt-dialect"])
def test_compile_reports_unverifiable_input_as_a_diagnostic(text, message):
    import tile_mlir
    from tile_mlir import TileError

    with pytest.raises(TileError, match="verification failed") as ei:
        tile_mlir.compile(text, emit=("ptx",))
    assert message in str(ei.value)
