// RUN: tile-opt %s --tile-verify --convert-tile-to-nvvm | FileCheck %s
//
// tile.block_id / tile.grid_dim read %ctaid / %nctaid; tile.reinterpret is the source's pointer (the
// copy that follows reads the same shared address).

// CHECK-LABEL: llvm.func @grid_ids
// CHECK: %[[X:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK: %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK: %[[N:.*]] = nvvm.read.ptx.sreg.nctaid.z : i32
// CHECK: arith.addi %[[X]], %[[Y]] : i32
"tile.kernel"() ({
  %x = "tile.block_id"() {dim = "x"} : () -> i32
  %y = "tile.block_id"() {dim = "y"} : () -> i32
  %n = "tile.grid_dim"() {dim = "z"} : () -> i32
  %s = arith.addi %x, %y : i32
  %t = arith.addi %s, %n : i32
  "tile.return"() : () -> ()
}) {sym_name = "grid_ids", block = array<i32: 32, 1, 1>, grid = array<i32: 2, 3, 4>} : () -> ()

// CHECK-LABEL: llvm.func @reinterpret_view
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @reinterpret_view_smem0 : !llvm.ptr<3>
// CHECK: %[[SH:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %{{.*}}, %[[SH]]
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 128x4xui8>):
  %raw = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 128>
  %sf = "tile.reinterpret"(%raw) : (!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 128>) -> !tile.buffer<shared, 128x4xui8, "S[(4, 32, 4) : (4, 16, 1)]", align 128>
  "tile.copy"(%sf, %g) : (!tile.buffer<shared, 128x4xui8, "S[(4, 32, 4) : (4, 16, 1)]", align 128>, !tile.buffer<global, 128x4xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reinterpret_view", block = array<i32: 128, 1, 1>} : () -> ()
