// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// All kernels of a module go into one gpu.module, so --tile-to-ptx prints one PTX module that ptxas
// assembles (not one module per kernel glued together).

// CHECK-COUNT-1: .version 8.8
// CHECK: .visible .entry first(
// CHECK: .visible .entry second(
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 128xi32>):
  "tile.return"() : () -> ()
}) {sym_name = "first", block = array<i32: 32, 1, 1>} : () -> ()
"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.init"(%bar) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "second", block = array<i32: 64, 1, 1>} : () -> ()
