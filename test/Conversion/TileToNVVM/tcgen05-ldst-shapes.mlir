// RUN: tile-opt %s --split-input-file --tile-lower-copy-async --no-type-aliases | FileCheck %s

// copy_async between tensor memory and registers: one case per tcgen05.ld/st shape, pack/unpack, the
// .num split, lane offsets and the wait placement (lowering/copy_async/tcgen05_ldst.py; the plan:
// tcgen05_ldst_plan.py). The end-to-end data of each shape: test/python/e2e/test_e2e_tcgen05_ldst.py.

// 128 lanes x 64 f32 columns, one row per thread: 32x32b.x64; warp w adds its quarter 32 (w % 4) to the lane field (bits 16..31); the wait comes before the first use of the registers, the store.
// CHECK: %[[T:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !tile.buffer<tmem, {{.*}}> to i32
// CHECK: %[[R:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !tile.buffer<reg, {{.*}}> to !llvm.ptr
// CHECK: %[[W:.*]] = arith.shrui %{{.*}}, %c5_i32 : i32
// CHECK: %[[Q:.*]] = arith.andi %[[W]], %c3_i32 : i32
// CHECK: %[[L:.*]] = arith.shli %[[Q]], %c21_i32 : i32
// CHECK: %[[A:.*]] = arith.addi %[[T]], %[[L]] : i32
// CHECK: %[[P:.*]] = llvm.inttoptr %[[A]] : i32 to !llvm.ptr<6>
// CHECK: %[[V:.*]] = nvvm.tcgen05.ld %[[P]] {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK: llvm.extractelement %[[V]][%c0_i32{{.*}} : i32] : vector<64xi32>
// CHECK: llvm.getelementptr %[[R]][252] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NOT: nvvm.tcgen05.ld
// CHECK: nvvm.tcgen05.wait <load>
// CHECK-NEXT: "tile.copy"
// CHECK: sym_name = "ld_32x32b"
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 128x64xf32>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x64xf32, "S[(128, 64) : (1@TLane, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x64xf32, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">
  "tile.copy_async"(%r, %t) {scope = "warpgroup"} : (!tile.buffer<reg, 128x64xf32, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<tmem, 128x64xf32, "S[(128, 64) : (1@TLane, 1@TCol)]">) -> ()
  "tile.copy"(%g, %r) {scope = "warpgroup"} : (!tile.buffer<global, 128x64xf32>, !tile.buffer<reg, 128x64xf32, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "ld_32x32b", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// bf16 alone in the low half of each column (2@TCol), packed two per register (1@reg): .unpack::16b.
// CHECK: llvm.mlir.poison : vector<16xi32>
// CHECK: nvvm.tcgen05.st %{{.*}}, %{{.*}} unpack {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <store>
// CHECK-NEXT: "tile.copy"
// CHECK: sym_name = "st_32x32b_unpack"
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 128x32xbf16>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x32xbf16, "S[(128, 32) : (1@TLane, 2@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x32xbf16, "S[(4, 32, 32) : (1@warpid, 1@laneid, 1@reg)]">
  "tile.copy_async"(%t, %r) {scope = "warpgroup"} : (!tile.buffer<tmem, 128x32xbf16, "S[(128, 32) : (1@TLane, 2@TCol)]">, !tile.buffer<reg, 128x32xbf16, "S[(4, 32, 32) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.copy"(%g, %r) {scope = "warpgroup"} : (!tile.buffer<global, 128x32xbf16>, !tile.buffer<reg, 128x32xbf16, "S[(4, 32, 32) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "st_32x32b_unpack", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// 16 rows per warp in the 16x64b fragment.
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x64b>} : vector<16xi32>
// CHECK: sym_name = "ld_16x64b"
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 64x32xf32>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x32xf32, "S[(4, 16, 32) : (32@TLane, 1@TLane, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 16, 2) : (1@warpid, 1@laneid, 4@laneid, 1@reg, 2@laneid)]">
  "tile.copy_async"(%r, %t) {scope = "warpgroup"} : (!tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 16, 2) : (1@warpid, 1@laneid, 4@laneid, 1@reg, 2@laneid)]">, !tile.buffer<tmem, 64x32xf32, "S[(4, 16, 32) : (32@TLane, 1@TLane, 1@TCol)]">) -> ()
  "tile.copy"(%g, %r) {scope = "warpgroup"} : (!tile.buffer<global, 64x32xf32>, !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 16, 2) : (1@warpid, 1@laneid, 4@laneid, 1@reg, 2@laneid)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "ld_16x64b", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// 16 rows per warp in the 16x128b fragment.
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x128b>} : vector<16xi32>
// CHECK: sym_name = "ld_16x128b"
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 64x32xf32>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x32xf32, "S[(4, 16, 32) : (32@TLane, 1@TLane, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 8, 4) : (1@warpid, 1@reg, 4@laneid, 2@reg, 1@laneid)]">
  "tile.copy_async"(%r, %t) {scope = "warpgroup"} : (!tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 8, 4) : (1@warpid, 1@reg, 4@laneid, 2@reg, 1@laneid)]">, !tile.buffer<tmem, 64x32xf32, "S[(4, 16, 32) : (32@TLane, 1@TLane, 1@TCol)]">) -> ()
  "tile.copy"(%g, %r) {scope = "warpgroup"} : (!tile.buffer<global, 64x32xf32>, !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 8, 4) : (1@warpid, 1@reg, 4@laneid, 2@reg, 1@laneid)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "ld_16x128b", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// the upper 16 lanes of each quarter: lane offset 16 (1048576 = 16 << 16).
// CHECK: %[[Q:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: %[[F:.*]] = arith.constant 1048576 : i32
// CHECK: %[[A:.*]] = arith.addi %[[Q]], %[[F]] : i32
// CHECK: nvvm.tcgen05.st %{{.*}}, %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<16xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <store>
// CHECK: sym_name = "st_16x256b_upper_half"
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 64x32xf32>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x32xf32, "S[(4, 16, 32) : (32@TLane, 1@TLane, 1@TCol)] + O[16@TLane]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 4, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">
  "tile.copy_async"(%t, %r) {scope = "warpgroup"} : (!tile.buffer<tmem, 64x32xf32, "S[(4, 16, 32) : (32@TLane, 1@TLane, 1@TCol)] + O[16@TLane]">, !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 4, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">) -> ()
  "tile.copy"(%g, %r) {scope = "warpgroup"} : (!tile.buffer<global, 64x32xf32>, !tile.buffer<reg, 64x32xf32, "S[(4, 2, 8, 4, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "st_16x256b_upper_half", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// the two 16-lane halves 64 columns apart: immHalfSplitoff 64.
// CHECK: %[[IMM:.*]] = arith.constant 64 : i64
// CHECK: nvvm.tcgen05.ld %{{.*}}, %[[IMM]] {shape = #nvvm.tcgen05_ldst_shape<shape_16x32bx2>} : vector<8xi32>
// CHECK: sym_name = "ld_16x32bx2"
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 64x16xf32>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x16xf32, "S[(4, 16, 2, 8) : (32@TLane, 1@TLane, 64@TCol, 1@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 64x16xf32, "S[(4, 16, 2, 8) : (1@warpid, 1@laneid, 16@laneid, 1@reg)]">
  "tile.copy_async"(%r, %t) {scope = "warpgroup"} : (!tile.buffer<reg, 64x16xf32, "S[(4, 16, 2, 8) : (1@warpid, 1@laneid, 16@laneid, 1@reg)]">, !tile.buffer<tmem, 64x16xf32, "S[(4, 16, 2, 8) : (32@TLane, 1@TLane, 64@TCol, 1@TCol)]">) -> ()
  "tile.copy"(%g, %r) {scope = "warpgroup"} : (!tile.buffer<global, 64x16xf32>, !tile.buffer<reg, 64x16xf32, "S[(4, 16, 2, 8) : (1@warpid, 1@laneid, 16@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "ld_16x32bx2", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// 192 packed registers per thread: .x128 then .x64 at column 256 (one instruction moves at most 128 registers, a packed one two columns), one wait for both.
// CHECK: nvvm.tcgen05.ld %{{.*}} pack {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<128xi32>
// CHECK: arith.constant 256 : i32
// CHECK: nvvm.tcgen05.ld %{{.*}} pack {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK: nvvm.tcgen05.wait <load>
// CHECK-NEXT: "tile.copy"
// CHECK: sym_name = "ld_pack_x128_x64"
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 128x384xbf16>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 512} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x384xbf16, "S[(128, 384) : (1@TLane, 2@TCol)]">
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x384xbf16, "S[(4, 32, 384) : (1@warpid, 1@laneid, 1@reg)]">
  "tile.copy_async"(%r, %t) {scope = "warpgroup"} : (!tile.buffer<reg, 128x384xbf16, "S[(4, 32, 384) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<tmem, 128x384xbf16, "S[(128, 384) : (1@TLane, 2@TCol)]">) -> ()
  "tile.copy"(%g, %r) {scope = "warpgroup"} : (!tile.buffer<global, 128x384xbf16>, !tile.buffer<reg, 128x384xbf16, "S[(4, 32, 384) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "ld_pack_x128_x64", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// Two loads, used in that order (the first inside a region): one wait, before the first use, covers
// both; none before the second use.
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<8xi32>
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<8xi32>
// CHECK: nvvm.tcgen05.wait <load>
// CHECK-NEXT: scf.if
// CHECK-NEXT: "tile.copy"(%g
// CHECK-NEXT: }
// CHECK-NEXT: "tile.copy"(%h
// CHECK: sym_name = "two_loads_one_wait"
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 128x8xf32>, %h: !tile.buffer<global, 128x8xf32>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x16xf32, "S[(128, 16) : (1@TLane, 1@TCol)]">
  %a = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x8xf32, "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]">
  %b = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x8xf32, "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]">
  "tile.copy_async"(%a, %t) {scope = "warpgroup", src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 128, 8>} : (!tile.buffer<reg, 128x8xf32, "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<tmem, 128x16xf32, "S[(128, 16) : (1@TLane, 1@TCol)]">) -> ()
  "tile.copy_async"(%b, %t) {scope = "warpgroup", src_offsets = array<i64: 0, 8>, src_sizes = array<i64: 128, 8>} : (!tile.buffer<reg, 128x8xf32, "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<tmem, 128x16xf32, "S[(128, 16) : (1@TLane, 1@TCol)]">) -> ()
  %c4 = arith.constant 4 : i32
  %w = "tile.warp_id"() : () -> i32
  // (a guard that lets the whole warpgroup through: a warpgroup copy run by fewer warps is an error)
  %p = arith.cmpi ult, %w, %c4 : i32
  scf.if %p {
    "tile.copy"(%g, %a) {scope = "warpgroup"} : (!tile.buffer<global, 128x8xf32>, !tile.buffer<reg, 128x8xf32, "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  }
  "tile.copy"(%h, %b) {scope = "warpgroup"} : (!tile.buffer<global, 128x8xf32>, !tile.buffer<reg, 128x8xf32, "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "two_loads_one_wait", block = array<i32: 128, 1, 1>} : () -> ()
