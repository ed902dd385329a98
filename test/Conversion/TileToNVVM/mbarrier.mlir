// RUN: tile-opt %s --tile-verify --convert-tile-to-nvvm | FileCheck %s
//
// mbarrier init / arrive / wait (a try_wait.parity spin loop as scf.while) and tcgen05.commit.

// CHECK-LABEL: gpu.module @tile_kernels
// CHECK: llvm.mlir.global internal @mbar_smem0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8 x i8>
// CHECK-LABEL: llvm.func @mbar
// CHECK: %[[BAR:.*]] = llvm.mlir.addressof @mbar_smem0 : !llvm.ptr<3>
// CHECK: %[[COUNT:.*]] = arith.constant 128 : i32
// CHECK: nvvm.mbarrier.init %[[BAR]], %[[COUNT]] {{.*}}: !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.arrive %[[BAR]] : !llvm.ptr<3> -> i64
// CHECK: scf.while : () -> () {
// CHECK:   %[[PH:.*]] = arith.constant 1 : i32
// CHECK:   %[[DONE:.*]] = nvvm.mbarrier.try_wait %[[BAR]], %[[PH]] {{.*}}: !llvm.ptr<3>, i32 -> i1
// CHECK:   %[[TRUE:.*]] = arith.constant true
// CHECK:   %[[AGAIN:.*]] = arith.xori %[[DONE]], %[[TRUE]] : i1
// CHECK:   scf.condition(%[[AGAIN]])
// CHECK: } do {
// CHECK:   scf.yield
// CHECK: }
"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.init"(%bar) {count = 128} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.mbarrier.arrive"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.mbarrier.wait"(%bar) {phase = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "mbar", block = array<i32: 128, 1, 1>} : () -> ()

// The default phase is 0.
// CHECK-LABEL: llvm.func @wait_phase0
// CHECK: scf.while
// CHECK: %[[P0:.*]] = arith.constant 0 : i32
// CHECK: nvvm.mbarrier.try_wait %{{.*}}, %[[P0]]
"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.wait"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wait_phase0", block = array<i32: 128, 1, 1>} : () -> ()

// tcgen05.commit without a mask (cta_group 1 is the default and prints no group).
// CHECK-LABEL: llvm.func @commit_plain
// CHECK: %[[B:.*]] = llvm.mlir.addressof @commit_plain_smem0 : !llvm.ptr<3>
// CHECK: nvvm.tcgen05.commit %[[B]] : !llvm.ptr<3>
// CHECK-NOT: multicast_mask
// CHECK: llvm.return
"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.commit"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "commit_plain", block = array<i32: 128, 1, 1>} : () -> ()

// cta_group 2 with a multicast mask (an i16 operand).
// CHECK-LABEL: llvm.func @commit_multicast
// CHECK: %[[B:.*]] = llvm.mlir.addressof @commit_multicast_smem0 : !llvm.ptr<3>
// CHECK: %[[MASK:.*]] = arith.constant 3 : i16
// CHECK: nvvm.tcgen05.commit %[[B]], multicast_mask = %[[MASK]] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16
"tile.kernel"() ({
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.commit"(%bar) {cta_group = 2, multicast_mask = 3} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "commit_multicast", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()
