// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx=chip=sm_90a > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: tile-opt %s --tile-to-ptx > %t100.ptx
// RUN: FileCheck %s < %t100.ptx
// RUN: %ptxas -arch=sm_100a %t100.ptx -o %t100.cubin
//
// tile.semaphore.arrive (a split tile's fix-up, docs/gemm-library.md §3): each warpgroup of the CTA arrives at
// its own counter, 3 arrivals a round; every thread releases (fence.acq_rel.gpu), the warpgroup meets at its
// named barrier, its first thread increments modulo 3 and acquires, and bar.red.or tells all of them.

// CHECK-LABEL: .entry semaphore
// CHECK: fence.acq_rel.gpu;
// CHECK: bar.sync {{[0-9]+}}, 128;
// CHECK: atom.global.inc.u32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], 2;
// CHECK: fence.acq_rel.gpu;
// CHECK: bar.red.or.pred
"tile.kernel"() ({
^bb0(%C: !tile.buffer<global, 2xi32>):
  %w = "tile.warp_id"() : () -> i32
  %c4 = arith.constant 4 : i32
  %c3 = arith.constant 3 : i32
  %g = arith.divui %w, %c4 : i32
  %s = "tile.subview"(%C, %g) {static_offsets = array<i64: -1>, sizes = array<i64: 1>} : (!tile.buffer<global, 2xi32>, i32) -> !tile.buffer<global, 1xi32, "S[(1,) : (1,)]">
  %last = "tile.semaphore.arrive"(%s, %c3) {id = 1, count = 128} : (!tile.buffer<global, 1xi32, "S[(1,) : (1,)]">, i32) -> i1
  "tile.return"() : () -> ()
}) {sym_name = "semaphore", block = array<i32: 256, 1, 1>, grid = array<i32: 4, 1, 1>} : () -> ()
