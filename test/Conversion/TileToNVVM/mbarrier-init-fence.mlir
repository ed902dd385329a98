// RUN: tile-opt %s --tile-verify --convert-tile-to-nvvm | FileCheck %s
//
// The compiler's fence.mbarrier_init (docs/fences.md): one after the last tile.mbarrier.init of a run
// (arith ops between the inits do not end it), none where the program wrote it, one per run.

// CHECK-LABEL: llvm.func @run_of_inits
// CHECK: nvvm.mbarrier.init
// CHECK-NOT: nvvm.fence.mbarrier.init
// CHECK: nvvm.mbarrier.init
// CHECK-NOT: nvvm.fence.mbarrier.init
// CHECK: nvvm.mbarrier.init
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.fence.mbarrier.init
// CHECK: llvm.return
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %c = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.init"(%a) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.mbarrier.init"(%b) {count = 2} : (!tile.buffer<shared, 1xi64>) -> ()
  %c0 = arith.constant 0 : i32
  "tile.mbarrier.init"(%c) {count = 128} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.barrier"() : () -> ()
  "tile.mbarrier.arrive"(%a) : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "run_of_inits", block = array<i32: 128, 1, 1>} : () -> ()

// Written by the program: kept, not doubled.
// CHECK-LABEL: llvm.func @written
// CHECK: nvvm.mbarrier.init
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.fence.mbarrier.init
// CHECK: llvm.return
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.mbarrier.init"(%a) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  "tile.fence"() {kind = "mbarrier_init"} : () -> ()
  "tile.barrier"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "written", block = array<i32: 128, 1, 1>} : () -> ()

// Inits in an scf.if (one thread initialises): the fence goes inside, after the last; another fence kind
// next to the init is not the init fence.
// CHECK-LABEL: llvm.func @in_a_branch
// CHECK: scf.if
// CHECK: nvvm.mbarrier.init
// CHECK-NOT: nvvm.fence.mbarrier.init
// CHECK: nvvm.mbarrier.init
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.fence.mbarrier.init
// CHECK: llvm.return
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.mbarrier.init"(%a) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.mbarrier.init"(%b) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()
    "tile.fence"() {kind = "proxy_async"} : () -> ()
  }
  "tile.barrier"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "in_a_branch", block = array<i32: 128, 1, 1>} : () -> ()
