// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// Every tcgen05.cp shape (the kernels of Conversion/TileToNVVM/tcgen05-cp-shapes.mlir), with cta_group 1
// and 2, through libNVVM to PTX and ptxas: the shape and multicast qualifiers, the decompression formats,
// and the tmem address of each cp (+column, +lane << 16 for 4x256b).

// CHECK-LABEL: .entry shape_128x256b_bf16_sw128_cg1(
// CHECK: tcgen05.cp.cta_group::1.128x256b [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.128x256b [%r{{[0-9]+}}+8], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.128x256b [%r{{[0-9]+}}+16], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.128x256b [%r{{[0-9]+}}+24], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_128x256b_bf16_interleaved_cg1(
// CHECK: tcgen05.cp.cta_group::1.128x256b [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_128x128b_u8_cg1(
// CHECK: tcgen05.cp.cta_group::1.128x128b [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_4x256b_f32_lane_middle_cg1(
// CHECK: tcgen05.cp.cta_group::1.4x256b [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.4x256b [%r{{[0-9]+}}+65536], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.4x256b [%r{{[0-9]+}}+131072], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.4x256b [%r{{[0-9]+}}+196608], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_64x128b_02_13_u8_cg1(
// CHECK: tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_64x128b_01_23_u8_sw64_cg1(
// CHECK: tcgen05.cp.cta_group::1.64x128b.warpx2::01_23 [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.64x128b.warpx2::01_23 [%r{{[0-9]+}}+4], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.64x128b.warpx2::01_23 [%r{{[0-9]+}}+8], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.64x128b.warpx2::01_23 [%r{{[0-9]+}}+12], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_32x128b_fp4_b4x16_p64_cg1(
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b4x16_p64 [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b4x16_p64 [%r{{[0-9]+}}+4], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_128x256b_f6_b6x16_p32_cg1(
// CHECK: tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_128x256b_bf16_sw128_cg2(
// CHECK: tcgen05.cp.cta_group::2.128x256b [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::2.128x256b [%r{{[0-9]+}}+8], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::2.128x256b [%r{{[0-9]+}}+16], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::2.128x256b [%r{{[0-9]+}}+24], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_128x256b_bf16_interleaved_cg2(
// CHECK: tcgen05.cp.cta_group::2.128x256b [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_128x128b_u8_cg2(
// CHECK: tcgen05.cp.cta_group::2.128x128b [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_4x256b_f32_lane_middle_cg2(
// CHECK: tcgen05.cp.cta_group::2.4x256b [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::2.4x256b [%r{{[0-9]+}}+65536], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::2.4x256b [%r{{[0-9]+}}+131072], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::2.4x256b [%r{{[0-9]+}}+196608], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_64x128b_02_13_u8_cg2(
// CHECK: tcgen05.cp.cta_group::2.64x128b.warpx2::02_13 [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_64x128b_01_23_u8_sw64_cg2(
// CHECK: tcgen05.cp.cta_group::2.64x128b.warpx2::01_23 [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::2.64x128b.warpx2::01_23 [%r{{[0-9]+}}+4], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::2.64x128b.warpx2::01_23 [%r{{[0-9]+}}+8], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::2.64x128b.warpx2::01_23 [%r{{[0-9]+}}+12], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_32x128b_fp4_b4x16_p64_cg2(
// CHECK: tcgen05.cp.cta_group::2.32x128b.warpx4.b8x16.b4x16_p64 [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::2.32x128b.warpx4.b8x16.b4x16_p64 [%r{{[0-9]+}}+4], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry shape_128x256b_f6_b6x16_p32_cg2(
// CHECK: tcgen05.cp.cta_group::2.128x256b.b8x16.b6x16_p32 [%r{{[0-9]+}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(128, 64) : (64, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x64xbf16, "S[(128, 64) : (1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 128x64xbf16, "S[(128, 64) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(128, 64) : (64, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_128x256b_bf16_sw128_cg1", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 1024, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x16xbf16, "S[(128, 16) : (1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 128x16xbf16, "S[(128, 16) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 1024, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_128x256b_bf16_interleaved_cg1", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xui8, "S[(128, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x16xui8, "S[(128, 16) : (1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 128x16xui8, "S[(128, 16) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xui8, "S[(128, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_128x128b_u8_cg1", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x4x8xf32, "S[(4, 4, 2, 4) : (4, 16, 256, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 4x4x8xf32, "S[(4, 4, 8) : (32@TLane, 1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 4x4x8xf32, "S[(4, 4, 8) : (32@TLane, 1@TLane, 1@TCol)]">, !tile.buffer<shared, 4x4x8xf32, "S[(4, 4, 2, 4) : (4, 16, 256, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_4x256b_f32_lane_middle_cg1", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xui8, "S[(64, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x16xui8, "S[(64, 16) : (1@TLane, 1@TCol)] + R[2 : 64@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 64x16xui8, "S[(64, 16) : (1@TLane, 1@TCol)] + R[2 : 64@TLane]">, !tile.buffer<shared, 64x16xui8, "S[(64, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_64x128b_02_13_u8_cg1", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xui8, "Swizzle<64B> o S[(64, 64) : (64, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x64xui8, "S[(2, 32, 64) : (64@TLane, 1@TLane, 1@TCol)] + R[2 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 64x64xui8, "S[(2, 32, 64) : (64@TLane, 1@TLane, 1@TCol)] + R[2 : 32@TLane]">, !tile.buffer<shared, 64x64xui8, "Swizzle<64B> o S[(64, 64) : (64, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_64x128b_01_23_u8_sw64_cg1", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xf4E2M1FN, "S[(32, 2, 16) : (16, 512, 1)]", align 1024, packing b4x16_p64>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x32xf4E2M1FN, "S[(32, 32) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 32x32xf4E2M1FN, "S[(32, 32) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x32xf4E2M1FN, "S[(32, 2, 16) : (16, 512, 1)]", align 1024, packing b4x16_p64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_32x128b_fp4_b4x16_p64_cg1", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf6E3M2FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 1024, packing b6x16_p32>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x32xf6E3M2FN, "S[(128, 32) : (1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 128x32xf6E3M2FN, "S[(128, 32) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf6E3M2FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 1024, packing b6x16_p32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_128x256b_f6_b6x16_p32_cg1", block = array<i32: 128, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(128, 64) : (64, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x64xbf16, "S[(128, 64) : (1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 2} : (!tile.buffer<tmem, 128x64xbf16, "S[(128, 64) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(128, 64) : (64, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_128x256b_bf16_sw128_cg2", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 1024, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x16xbf16, "S[(128, 16) : (1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 2} : (!tile.buffer<tmem, 128x16xbf16, "S[(128, 16) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 1024, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_128x256b_bf16_interleaved_cg2", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xui8, "S[(128, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x16xui8, "S[(128, 16) : (1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 2} : (!tile.buffer<tmem, 128x16xui8, "S[(128, 16) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xui8, "S[(128, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_128x128b_u8_cg2", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x4x8xf32, "S[(4, 4, 2, 4) : (4, 16, 256, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 4x4x8xf32, "S[(4, 4, 8) : (32@TLane, 1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 2} : (!tile.buffer<tmem, 4x4x8xf32, "S[(4, 4, 8) : (32@TLane, 1@TLane, 1@TCol)]">, !tile.buffer<shared, 4x4x8xf32, "S[(4, 4, 2, 4) : (4, 16, 256, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_4x256b_f32_lane_middle_cg2", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xui8, "S[(64, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x16xui8, "S[(64, 16) : (1@TLane, 1@TCol)] + R[2 : 64@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 2} : (!tile.buffer<tmem, 64x16xui8, "S[(64, 16) : (1@TLane, 1@TCol)] + R[2 : 64@TLane]">, !tile.buffer<shared, 64x16xui8, "S[(64, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_64x128b_02_13_u8_cg2", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xui8, "Swizzle<64B> o S[(64, 64) : (64, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x64xui8, "S[(2, 32, 64) : (64@TLane, 1@TLane, 1@TCol)] + R[2 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 2} : (!tile.buffer<tmem, 64x64xui8, "S[(2, 32, 64) : (64@TLane, 1@TLane, 1@TCol)] + R[2 : 32@TLane]">, !tile.buffer<shared, 64x64xui8, "Swizzle<64B> o S[(64, 64) : (64, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_64x128b_01_23_u8_sw64_cg2", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xf4E2M1FN, "S[(32, 2, 16) : (16, 512, 1)]", align 1024, packing b4x16_p64>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x32xf4E2M1FN, "S[(32, 32) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 2} : (!tile.buffer<tmem, 32x32xf4E2M1FN, "S[(32, 32) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x32xf4E2M1FN, "S[(32, 2, 16) : (16, 512, 1)]", align 1024, packing b4x16_p64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_32x128b_fp4_b4x16_p64_cg2", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf6E3M2FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 1024, packing b6x16_p32>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x32xf6E3M2FN, "S[(128, 32) : (1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 2} : (!tile.buffer<tmem, 128x32xf6E3M2FN, "S[(128, 32) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf6E3M2FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 1024, packing b6x16_p32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_128x256b_f6_b6x16_p32_cg2", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()
