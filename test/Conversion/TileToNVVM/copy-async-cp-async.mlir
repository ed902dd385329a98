// RUN: tile-opt %s --split-input-file --tile-verify --tile-lower-copy-async="chip=sm_90a" | FileCheck %s
//
// copy_async global -> shared lowers to cp.async (variant `global->shared`): every thread of the scope
// takes chunks rank, rank + n, ... of the widest access both layouts allow (16 B -> .cg, else .ca),
// then commits the group. The swizzled destination XORs address bits 7.. into 4.. .

// CHECK-LABEL: module
// CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[RANK:.+]] = arith.index_cast %[[TID]] : i32 to index
// CHECK: %[[N:.+]] = arith.constant 1024 : index
// CHECK: %[[STEP:.+]] = arith.constant 256 : index
// CHECK: scf.for %{{.+}} = %[[RANK]] to %[[N]] step %[[STEP]] {
// CHECK:   arith.xori
// CHECK:   nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: }
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK: sym_name = "cta_f32_128B"
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 64x64xf32>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xf32, "Swizzle<128B> o S[(64, 2, 32) : (32, 2048, 1)]", align 1024>
  "tile.copy_async"(%s, %A) {scope = "cta"} : (!tile.buffer<shared, 64x64xf32, "Swizzle<128B> o S[(64, 2, 32) : (32, 2048, 1)]", align 1024>, !tile.buffer<global, 64x64xf32>) -> ()
  "tile.async_wait"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "cta_f32_128B", block = array<i32: 256, 1, 1>} : () -> ()

// -----

// A warp copies from a column-major global tile (no two row elements adjacent): rank = lane
// (tid & 31), step 32, 4-byte .ca copies.
// CHECK-LABEL: module
// CHECK: %[[C31:.+]] = arith.constant 31 : i32
// CHECK: arith.andi %{{.+}}, %[[C31]] : i32
// CHECK: %[[STEP:.+]] = arith.constant 32 : index
// CHECK: scf.for
// CHECK:   nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: nvvm.cp.async.commit.group
// CHECK: sym_name = "warp_strided"
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 32x8xi32, "S[(32, 8) : (1, 32)]">):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x8xi32>
  "tile.copy_async"(%s, %A) {scope = "warp"} : (!tile.buffer<shared, 32x8xi32>, !tile.buffer<global, 32x8xi32, "S[(32, 8) : (1, 32)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "warp_strided", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// shared -> global: ld.shared + st.global by each thread of the scope (variant `shared->global`).
// CHECK-LABEL: module
// CHECK: scf.for
// CHECK:   %[[V:.+]] = llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK:   llvm.store %[[V]], %{{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK: sym_name = "store_back"
"tile.kernel"() ({
^bb0(%out: !tile.buffer<global, 16x64xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x64xui8>
  "tile.copy_async"(%out, %s) {scope = "warpgroup"} : (!tile.buffer<global, 16x64xui8>, !tile.buffer<shared, 16x64xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "store_back", block = array<i32: 128, 1, 1>} : () -> ()
