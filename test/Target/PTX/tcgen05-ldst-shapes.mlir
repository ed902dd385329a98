// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// Every tcgen05.ld/st shape, .pack::16b / .unpack::16b and the .num split through libNVVM to PTX, each
// kernel assembled by ptxas (the NVVM they come from: test/Conversion/TileToNVVM/tcgen05-ldst-shapes.mlir).

// CHECK-LABEL: .entry ld_32x32b(
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.b32
// CHECK: tcgen05.wait::ld.sync.aligned;

// CHECK-LABEL: .entry st_32x32b_unpack(
// CHECK: tcgen05.st.sync.aligned.32x32b.x16.unpack::16b.b32

// CHECK-LABEL: .entry ld_16x64b(
// CHECK: tcgen05.ld.sync.aligned.16x64b.x16.b32
// CHECK: tcgen05.wait::ld.sync.aligned;

// CHECK-LABEL: .entry ld_16x128b(
// CHECK: tcgen05.ld.sync.aligned.16x128b.x8.b32
// CHECK: tcgen05.wait::ld.sync.aligned;

// CHECK-LABEL: .entry st_16x256b_upper_half(
// CHECK: tcgen05.st.sync.aligned.16x256b.x4.b32
// CHECK: tcgen05.wait::st.sync.aligned;

// CHECK-LABEL: .entry ld_16x32bx2(
// CHECK: tcgen05.ld.sync.aligned.16x32bx2.x8.b32 {{{.*}}}, [%r{{[0-9]+}}], 64;
// CHECK: tcgen05.wait::ld.sync.aligned;

// CHECK-LABEL: .entry ld_pack_x128_x64(
// CHECK: tcgen05.ld.sync.aligned.32x32b.x128.pack::16b.b32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.pack::16b.b32
// CHECK: tcgen05.wait::ld.sync.aligned;

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

