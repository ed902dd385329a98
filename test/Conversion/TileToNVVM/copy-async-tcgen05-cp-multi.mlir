// RUN: tile-opt %s --split-input-file --tile-verify --tile-lower-copy-async --no-type-aliases | FileCheck %s

// Multi-cp lowerings: the unrolled sequence steps the descriptor's start field (in its low 32-bit word)
// and the tmem address (by add). Includes what TVM never tested: bf16, f32, cta_group 2, a tmem column
// offset.

// CHECK-LABEL: module
// CHECK: %[[DESC:.+]] = arith.ori %{{.+}}, %{{.+}} : i64
// CHECK: %[[T:.+]] = builtin.unrealized_conversion_cast %{{.+}} : !tile.buffer<tmem, {{.+}}> to i32
// CHECK: %[[P0:.+]] = llvm.inttoptr %[[T]] : i32 to !llvm.ptr<6>
// CHECK: nvvm.tcgen05.cp %[[P0]], %[[DESC]] {{.+}}tile.cp = "src_offset=0 col=0 sbo=128 swizzle=none"
// CHECK: %[[LO:.+]] = arith.trunci %[[DESC]] : i64 to i32
// CHECK: %[[HI:.+]] = arith.andi %[[DESC]], %{{.+}} : i64
// CHECK: %[[C32:.+]] = arith.constant 32 : i32
// CHECK: %[[L1:.+]] = arith.addi %[[LO]], %[[C32]] : i32
// CHECK: %[[Z1:.+]] = arith.extui %[[L1]] : i32 to i64
// CHECK: %[[D1:.+]] = arith.ori %[[HI]], %[[Z1]] : i64
// CHECK: %[[C4:.+]] = arith.constant 4 : i32
// CHECK: %[[T1:.+]] = arith.addi %[[T]], %[[C4]] : i32
// CHECK: %[[P1:.+]] = llvm.inttoptr %[[T1]] : i32 to !llvm.ptr<6>
// CHECK: nvvm.tcgen05.cp %[[P1]], %[[D1]] {{.+}}tile.cp = "src_offset=512 col=4 sbo=128 swizzle=none"
// CHECK: arith.constant 64 : i32
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=1024 col=8 sbo=128 swizzle=none"
// CHECK: arith.constant 96 : i32
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=1536 col=12 sbo=128 swizzle=none"
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "multi_cp_sw0_4tiles"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x32x16xui8, "S[(4, 32, 16) : (512, 16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 4x32x16xui8, "S[(4, 32, 16) : (16@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 4x32x16xui8, "S[(4, 32, 16) : (16@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 4x32x16xui8, "S[(4, 32, 16) : (512, 16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "multi_cp_sw0_4tiles", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// TMEM middle (8, 4@TCol-columns) against SMEM middle [(4, 512 B), (2, 2048 B)]: union-cut alignment.
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=0 col=0 sbo=128 swizzle=none"
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=2048 col=4 sbo=128 swizzle=none"
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=512 col=8 sbo=128 swizzle=none"
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=2560 col=12 sbo=128 swizzle=none"
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=1024 col=16 sbo=128 swizzle=none"
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=3072 col=20 sbo=128 swizzle=none"
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=1536 col=24 sbo=128 swizzle=none"
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=3584 col=28 sbo=128 swizzle=none"
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "align_middle_2_to_1_nvfp4_sfb"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 256x16xui8, "S[(2, 4, 32, 4, 4) : (2048, 4, 16, 512, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 256x16xui8, "S[(2, 4, 32, 4, 4) : (16@TCol, 4@TCol, 1@TLane, 32@TCol, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 256x16xui8, "S[(2, 4, 32, 4, 4) : (16@TCol, 4@TCol, 1@TLane, 32@TCol, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 256x16xui8, "S[(2, 4, 32, 4, 4) : (2048, 4, 16, 512, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "align_middle_2_to_1_nvfp4_sfb", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: arith.constant 4611756662049472512 : i64
// Eight 16-byte K steps inside the 128-byte swizzle row (CUTLASS DescriptorIterator style).
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=0 col=0 sbo=1024 swizzle=128B"
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=16 col=4 sbo=1024 swizzle=128B"
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=32 col=8 sbo=1024 swizzle=128B"
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=48 col=12 sbo=1024 swizzle=128B"
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=64 col=16 sbo=1024 swizzle=128B"
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=80 col=20 sbo=1024 swizzle=128B"
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=96 col=24 sbo=1024 swizzle=128B"
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=112 col=28 sbo=1024 swizzle=128B"
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "bf16_sw128_k_steps"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x64xbf16, "S[(32, 64) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 32x64xbf16, "S[(32, 64) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "bf16_sw128_k_steps", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// Bytes 16..31 of each lane are 32-bit columns 4..7: the tmem address gets +4 (add, not or).
// CHECK: %[[T:.+]] = builtin.unrealized_conversion_cast {{.+}} to i32
// CHECK: %[[C:.+]] = arith.constant 4 : i32
// CHECK: arith.addi %[[T]], %[[C]] : i32
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=0 col=4 sbo=128 swizzle=none"
// CHECK: sym_name = "tmem_column_offset_16"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x64xui8, "S[(32, 64) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {dst_offsets = array<i64: 0, 16>, dst_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x64xui8, "S[(32, 64) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tmem_column_offset_16", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: nvvm.tcgen05.cp {{.+}}group = #nvvm.cta_group<cta_2>{{.+}}tile.cp = "src_offset=0 col=0 sbo=128 swizzle=none"
// CHECK: sym_name = "cta_group_2_f32"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x4xf32, "S[(32, 4) : (4, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x4xf32, "S[(32, 4) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 2} : (!tile.buffer<tmem, 32x4xf32, "S[(32, 4) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x4xf32, "S[(32, 4) : (4, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "cta_group_2_f32", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// -----

// The descriptor is encoded once per (buffer, LBO, SBO, swizzle), right after the buffer's allocation,
// and both copies from the buffer use it (the second one through its start-offset step). Likewise the
// tmem address: one cast right after the tile.tmem.buffer, which both copies add their column to.
// CHECK-LABEL: module
// CHECK: %[[S:.+]] = "tile.alloc_shared"()
// CHECK-NEXT: builtin.unrealized_conversion_cast %[[S]]
// CHECK: %[[DESC:.+]] = arith.ori
// CHECK-NOT: arith.ori %{{.+}}, %{{.+}} : i64
// CHECK: %[[T:.+]] = "tile.tmem.buffer"
// CHECK-NEXT: %[[TA:.+]] = builtin.unrealized_conversion_cast %[[T]] {{.+}} to i32
// CHECK-NOT: arith.ori %{{.+}}, %{{.+}} : i64
// CHECK-NOT: builtin.unrealized_conversion_cast
// CHECK: nvvm.tcgen05.cp %{{.+}}, %[[DESC]] {{.+}}tile.cp = "src_offset=0 col=0 sbo=128 swizzle=none"
// CHECK: arith.trunci %[[DESC]]
// CHECK-NOT: builtin.unrealized_conversion_cast
// CHECK: arith.addi %[[TA]]
// CHECK: nvvm.tcgen05.cp {{.+}}tile.cp = "src_offset=512 col=4 sbo=128 swizzle=none"
// CHECK: sym_name = "descriptor_shared_by_two_copies"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xui8, "S[(64, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x32xui8, "S[(32, 32) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 16>, dst_offsets = array<i64: 0, 0>, dst_sizes = array<i64: 32, 16>} : (!tile.buffer<tmem, 32x32xui8, "S[(32, 32) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 64x16xui8, "S[(64, 16) : (16, 1)]", align 1024>) -> ()
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 32, 0>, src_sizes = array<i64: 32, 16>, dst_offsets = array<i64: 0, 16>, dst_sizes = array<i64: 32, 16>} : (!tile.buffer<tmem, 32x32xui8, "S[(32, 32) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 64x16xui8, "S[(64, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "descriptor_shared_by_two_copies", block = array<i32: 128, 1, 1>} : () -> ()
