// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx=chip=sm_90a > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
//
// TMA through tile.subview windows at the CTA's tile origin: the coordinates are registers
// (ctaid * 64 plus the region's static offset), innermost first; the store's window likewise.

// CHECK-LABEL: .entry subview_tma(
// CHECK-DAG: mov.u32 %r[[X:[0-9]+]], %ctaid.x;
// CHECK-DAG: mov.u32 %r[[Y:[0-9]+]], %ctaid.y;
// CHECK: shl.b32 %r[[C:[0-9]+]], %r[[X]], 6;
// CHECK: shl.b32 %r[[R:[0-9]+]], %r[[Y]], 6;
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [subview_tma_smem0], [%rd{{[0-9]+}}, {%r[[C]], %r[[R]]}], [subview_tma_smem1];
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd{{[0-9]+}}, {%r[[C]], %r[[R]]}], [subview_tma_smem0];
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 256x512xbf16>, %D: !tile.buffer<global, 256x512xbf16>):
  %ma = "tile.tensor_map"(%A) {box = array<i64: 64, 64>, swizzle = "128B"} : (!tile.buffer<global, 256x512xbf16>) -> !tile.tensormap
  %md = "tile.tensor_map"(%D) {box = array<i64: 64, 64>, swizzle = "128B"} : (!tile.buffer<global, 256x512xbf16>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %x = "tile.block_id"() {dim = "x"} : () -> i32
  %y = "tile.block_id"() {dim = "y"} : () -> i32
  %col = arith.muli %x, %c64 : i32
  %row = arith.muli %y, %c64 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.mbarrier.init"(%bar) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.fence"() {kind = "mbarrier_init"} : () -> ()
    "tile.mbarrier.arrive_expect_tx"(%bar) {bytes = 8192} : (!tile.buffer<shared, 1xi64>) -> ()
    %w = "tile.subview"(%A, %row, %col) {static_offsets = array<i64: -1, -1>, sizes = array<i64: 64, 64>} : (!tile.buffer<global, 256x512xbf16>, i32, i32) -> !tile.buffer<global, 64x64xbf16, "S[(64, 64) : (512, 1)]">
    "tile.copy_async"(%s, %w, %bar) : (!tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>, !tile.buffer<global, 64x64xbf16, "S[(64, 64) : (512, 1)]">, !tile.buffer<shared, 1xi64>) -> ()
    "tile.mbarrier.wait"(%bar) {phase = 0} : (!tile.buffer<shared, 1xi64>) -> ()
    %o = "tile.subview"(%D, %row, %col) {static_offsets = array<i64: -1, -1>, sizes = array<i64: 64, 64>} : (!tile.buffer<global, 256x512xbf16>, i32, i32) -> !tile.buffer<global, 64x64xbf16, "S[(64, 64) : (512, 1)]">
    "tile.copy_async"(%o, %s) : (!tile.buffer<global, 64x64xbf16, "S[(64, 64) : (512, 1)]">, !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>) -> ()
    "tile.bulk_wait"() {pending = 0} : () -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "subview_tma", block = array<i32: 32, 1, 1>, grid = array<i32: 8, 4, 1>} : () -> ()
