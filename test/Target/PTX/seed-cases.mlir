// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// Every seed case of copy-async-tcgen05-cp{,-multi}.mlir in one module, through libNVVM to PTX and ptxas:
// each kernel issues its tcgen05.cp.cta_group::N.32x128b.warpx4 instructions and nothing else async.

// CHECK-LABEL: .entry sw0_plain_atom_aligned(
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry sw1_32B_atom(
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry sw2_64B_atom(
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry sw3_128B_atom(
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry sw3_64x128_corner(
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry sw3_64x128_atom_row_8(
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry sw2_32x256_col_64(
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry sw0_M_atom_major_4_0(
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry multi_cp_sw0_4tiles(
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry align_middle_2_to_1_nvfp4_sfb(
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry bf16_sw128_k_steps(
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry tmem_column_offset_16(
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;
// CHECK-LABEL: .entry cta_group_2_f32(
// CHECK: tcgen05.cp.cta_group::2.32x128b.warpx4 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: ret;

"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw0_plain_atom_aligned", block = array<i32: 128, 1, 1>} : () -> ()
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xui8, "Swizzle<32B> o S[(32, 32) : (32, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x32xui8, "Swizzle<32B> o S[(32, 32) : (32, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw1_32B_atom", block = array<i32: 128, 1, 1>} : () -> ()
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xui8, "Swizzle<64B> o S[(32, 64) : (64, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x64xui8, "Swizzle<64B> o S[(32, 64) : (64, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw2_64B_atom", block = array<i32: 128, 1, 1>} : () -> ()
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw3_128B_atom", block = array<i32: 128, 1, 1>} : () -> ()
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x128xui8, "Swizzle<128B> o S[(64, 128) : (128, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 64x128xui8, "Swizzle<128B> o S[(64, 128) : (128, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw3_64x128_corner", block = array<i32: 128, 1, 1>} : () -> ()
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x128xui8, "Swizzle<128B> o S[(64, 128) : (128, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 8, 0>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 64x128xui8, "Swizzle<128B> o S[(64, 128) : (128, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw3_64x128_atom_row_8", block = array<i32: 128, 1, 1>} : () -> ()
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x256xui8, "Swizzle<64B> o S[(32, 4, 64) : (64, 2048, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 64>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x256xui8, "Swizzle<64B> o S[(32, 4, 64) : (64, 2048, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw2_32x256_col_64", block = array<i32: 128, 1, 1>} : () -> ()
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x32xui8, "S[(8, 8, 2, 16) : (128, 16, 1024, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 4, 0>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 64x32xui8, "S[(8, 8, 2, 16) : (128, 16, 1024, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw0_M_atom_major_4_0", block = array<i32: 128, 1, 1>} : () -> ()
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x32x16xui8, "S[(4, 32, 16) : (512, 16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 4x32x16xui8, "S[(4, 32, 16) : (16@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 4x32x16xui8, "S[(4, 32, 16) : (16@TCol, 1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 4x32x16xui8, "S[(4, 32, 16) : (512, 16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "multi_cp_sw0_4tiles", block = array<i32: 128, 1, 1>} : () -> ()
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 256x16xui8, "S[(2, 4, 32, 4, 4) : (2048, 4, 16, 512, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 256x16xui8, "S[(2, 4, 32, 4, 4) : (16@TCol, 4@TCol, 1@TLane, 32@TCol, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 256x16xui8, "S[(2, 4, 32, 4, 4) : (16@TCol, 4@TCol, 1@TLane, 32@TCol, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 256x16xui8, "S[(2, 4, 32, 4, 4) : (2048, 4, 16, 512, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "align_middle_2_to_1_nvfp4_sfb", block = array<i32: 128, 1, 1>} : () -> ()
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x64xbf16, "S[(32, 64) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 32x64xbf16, "S[(32, 64) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x64xbf16, "Swizzle<128B> o S[(32, 64) : (64, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "bf16_sw128_k_steps", block = array<i32: 128, 1, 1>} : () -> ()
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x64xui8, "S[(32, 64) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {dst_offsets = array<i64: 0, 16>, dst_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x64xui8, "S[(32, 64) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "tmem_column_offset_16", block = array<i32: 128, 1, 1>} : () -> ()
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x4xf32, "S[(32, 4) : (4, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x4xf32, "S[(32, 4) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 2} : (!tile.buffer<tmem, 32x4xf32, "S[(32, 4) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x4xf32, "S[(32, 4) : (4, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "cta_group_2_f32", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()
