// RUN: tile-opt %s --split-input-file | tile-opt --split-input-file | FileCheck %s

// tile.gemm_async, tile.gemm_async.block_scale and tile.gemm_wait parse, verify and print (generic form);
// operand order (d, a, b, accumulate[, sfa, sfb]) and attribute names are stable (docs/gemm.md §1).

// CHECK-LABEL: "tile.kernel"
// CHECK: "tile.gemm_async"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) {a_offsets = array<i64: 0, 0>, a_sizes = array<i64: 128, 64>, cta_group = 1 : i64, kind = "f16"}
// CHECK: sym_name = "tc"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(128, 64) : (64, 1)]", align 1024>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(128, 64) : (64, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %acc = arith.constant true
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async"(%d, %a, %b, %acc) {cta_group = 1, kind = "f16", a_offsets = array<i64: 0, 0>, a_sizes = array<i64: 128, 64>} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(128, 64) : (64, 1)]", align 1024>, !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(128, 64) : (64, 1)]", align 1024>, i1) -> ()
    "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "tc", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: "tile.kernel"
// CHECK: "tile.gemm_async.block_scale"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) {cta_group = 1 : i64, dispatch = "tcgen05_mma", scale_vec = 16 : i64}
// CHECK: sym_name = "bs"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  "tile.tmem.alloc"(%slot) {num_cols = 512, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %sfa = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">
  %sfb = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">
  %acc = arith.constant true
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.gemm_async.block_scale"(%d, %a, %b, %acc, %sfa, %sfb) {cta_group = 1, scale_vec = 16, dispatch = "tcgen05_mma"} : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>, !tile.buffer<shared, 128x64xf4E2M1FN, "Swizzle<32B> o S[(128, 64) : (64, 1)]", align 256>, i1, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">, !tile.buffer<tmem, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane] + O[512@TCol]">) -> ()
    "tile.commit"(%bar) {cta_group = 1} : (!tile.buffer<shared, 1xi64>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "bs", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: "tile.kernel"
// CHECK: %[[ACC:.+]] = arith.cmpi ne
// CHECK: "tile.gemm_async"(%{{.+}}, %{{.+}}, %{{.+}}, %[[ACC]]) {scope = "warpgroup"}
// CHECK: "tile.gemm_wait"() {pending = 1 : i64} : () -> ()
// CHECK: sym_name = "wg"
"tile.kernel"() ({
^bb0(%k: i32):
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>
  %d = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  %c0 = arith.constant 0 : i32
  %acc = arith.cmpi ne, %k, %c0 : i32
  "tile.gemm_async"(%d, %a, %b, %acc) {scope = "warpgroup"} : (!tile.buffer<reg, 64x16xf32, "S[(4, 2, 8, 2, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">, !tile.buffer<shared, 64x16xbf16, "Swizzle<32B> o S[(64, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 16x16xbf16, "Swizzle<32B> o S[(16, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.gemm_wait"() {pending = 1} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "wg", block = array<i32: 128, 1, 1>} : () -> ()
