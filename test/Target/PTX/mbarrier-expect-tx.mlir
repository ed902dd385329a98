// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// mbarrier.expect_tx (without arrive) before a TMA load completing on the barrier, and cp.async beside it,
// down to PTX that ptxas accepts (the NVVM: test/Conversion/TileToNVVM/tma.mlir, kernel "dispatch").

// CHECK-LABEL: .entry dispatch(
// CHECK: mbarrier.expect_tx.{{.*}}b64
// CHECK: cp.async.bulk.tensor.2d.shared::{{cta|cluster}}.global.tile.mbarrier::complete_tx::bytes
// CHECK: cp.async.cg.shared.global
// CHECK: cp.async.commit_group;
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 16x64xui8>):
  %m = "tile.tensor_map"(%A) {box = array<i64: 16, 64>} : (!tile.buffer<global, 16x64xui8>) -> !tile.tensormap
  %smem = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x64xui8, align 128>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.expect_tx"(%bar) {bytes = 1024} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.copy_async"(%smem, %A, %bar) : (!tile.buffer<shared, 16x64xui8, align 128>, !tile.buffer<global, 16x64xui8>, !tile.buffer<shared, 1xi64>) -> ()
  "tile.copy_async"(%smem, %A) {dispatch = "global->shared"} : (!tile.buffer<shared, 16x64xui8, align 128>, !tile.buffer<global, 16x64xui8>) -> ()
  "tile.async_wait"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "dispatch", block = array<i32: 32, 1, 1>} : () -> ()
