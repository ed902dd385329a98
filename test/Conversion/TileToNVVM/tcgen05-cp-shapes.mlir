// RUN: tile-opt %s --split-input-file --tile-verify --tile-lower-copy-async | FileCheck %s

// One kernel per tcgen05.cp shape (docs/tcgen05.md §7): the tmem layout's rows and replica pick the shape
// and multicast attributes, the shared layout the descriptor template (printed as a signed i64):
//   128x256b bf16 128B swizzle: SBO 1024, LBO 16 ("assumed 1"), 4 cps 32 B / 8 columns apart
//                           = 0x4000_4040_0001_0000
//   128x256b bf16 interleaved: SBO 128, LBO 2048 (the second K chunk) = 0x0000_4008_0080_0000
//   4x256b f32, lanes 32q + i: one cp per lane offset i (tile.cp lane=i), LBO 1024
//   64x128b.warpx2::02_13 / ::01_23, 32x128b.warpx4 with .b4x16_p64 and 128x256b with .b6x16_p32
//   decompression (srcFormat), and cta_group 2 (group attribute).

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant 4611756662049538048 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>, tile.cp = "src_offset=0 col=0 sbo=1024 swizzle=128B lbo=16"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>, tile.cp = "src_offset=32 col=8 sbo=1024 swizzle=128B lbo=16"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>, tile.cp = "src_offset=64 col=16 sbo=1024 swizzle=128B lbo=16"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>, tile.cp = "src_offset=96 col=24 sbo=1024 swizzle=128B lbo=16"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "shape_128x256b_bf16_sw128"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(128, 64) : (64, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x64xbf16, "S[(128, 64) : (1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 128x64xbf16, "S[(128, 64) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x64xbf16, "Swizzle<128B> o S[(128, 64) : (64, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_128x256b_bf16_sw128", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant 70403112304640 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>, tile.cp = "src_offset=0 col=0 sbo=128 swizzle=none lbo=2048"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "shape_128x256b_bf16_interleaved"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 1024, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x16xbf16, "S[(128, 16) : (1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 128x16xbf16, "S[(128, 16) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 1024, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_128x256b_bf16_interleaved", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant 70403103916032 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_cp_shape<shape_128x128b>, tile.cp = "src_offset=0 col=0 sbo=128 swizzle=none"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "shape_128x128b_u8"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xui8, "S[(128, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x16xui8, "S[(128, 16) : (1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 128x16xui8, "S[(128, 16) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xui8, "S[(128, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_128x128b_u8", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant 70403108110336 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_cp_shape<shape_4x256b>, tile.cp = "src_offset=0 col=0 sbo=128 swizzle=none lbo=1024"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_cp_shape<shape_4x256b>, tile.cp = "src_offset=64 col=0 lane=1 sbo=128 swizzle=none lbo=1024"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_cp_shape<shape_4x256b>, tile.cp = "src_offset=128 col=0 lane=2 sbo=128 swizzle=none lbo=1024"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_cp_shape<shape_4x256b>, tile.cp = "src_offset=192 col=0 lane=3 sbo=128 swizzle=none lbo=1024"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "shape_4x256b_f32_lane_middle"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x4x8xf32, "S[(4, 4, 2, 4) : (4, 16, 256, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 4x4x8xf32, "S[(4, 4, 8) : (32@TLane, 1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 4x4x8xf32, "S[(4, 4, 8) : (32@TLane, 1@TLane, 1@TCol)]">, !tile.buffer<shared, 4x4x8xf32, "S[(4, 4, 2, 4) : (4, 16, 256, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_4x256b_f32_lane_middle", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant 70403103916032 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx2_02_13>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>, tile.cp = "src_offset=0 col=0 sbo=128 swizzle=none"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "shape_64x128b_02_13_u8"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x16xui8, "S[(64, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x16xui8, "S[(64, 16) : (1@TLane, 1@TCol)] + R[2 : 64@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 64x16xui8, "S[(64, 16) : (1@TLane, 1@TCol)] + R[2 : 64@TLane]">, !tile.buffer<shared, 64x16xui8, "S[(64, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_64x128b_02_13_u8", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant -9223301530671644672 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx2_01_23>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>, tile.cp = "src_offset=0 col=0 sbo=512 swizzle=64B"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx2_01_23>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>, tile.cp = "src_offset=16 col=4 sbo=512 swizzle=64B"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx2_01_23>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>, tile.cp = "src_offset=32 col=8 sbo=512 swizzle=64B"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx2_01_23>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>, tile.cp = "src_offset=48 col=12 sbo=512 swizzle=64B"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "shape_64x128b_01_23_u8_sw64"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xui8, "Swizzle<64B> o S[(64, 64) : (64, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x64xui8, "S[(2, 32, 64) : (64@TLane, 1@TLane, 1@TCol)] + R[2 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 64x64xui8, "S[(2, 32, 64) : (64@TLane, 1@TLane, 1@TCol)] + R[2 : 32@TLane]">, !tile.buffer<shared, 64x64xui8, "Swizzle<64B> o S[(64, 64) : (64, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_64x128b_01_23_u8_sw64", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant 70403103916032 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, srcFormat = #nvvm.tcgen05_cp_src_fmt<b4x16_p64>, tile.cp = "src_offset=0 col=0 sbo=128 swizzle=none"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, srcFormat = #nvvm.tcgen05_cp_src_fmt<b4x16_p64>, tile.cp = "src_offset=512 col=4 sbo=128 swizzle=none"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "shape_32x128b_fp4_b4x16_p64"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xf4E2M1FN, "S[(32, 2, 16) : (16, 512, 1)]", align 1024, packing b4x16_p64>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x32xf4E2M1FN, "S[(32, 32) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 32x32xf4E2M1FN, "S[(32, 32) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x32xf4E2M1FN, "S[(32, 2, 16) : (16, 512, 1)]", align 1024, packing b4x16_p64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_32x128b_fp4_b4x16_p64", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant -4611615580963667968 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>, srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>, tile.cp = "src_offset=0 col=0 sbo=256 swizzle=32B lbo=16"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "shape_128x256b_f6_b6x16_p32"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x32xf6E3M2FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 1024, packing b6x16_p32>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x32xf6E3M2FN, "S[(128, 32) : (1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 1} : (!tile.buffer<tmem, 128x32xf6E3M2FN, "S[(128, 32) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x32xf6E3M2FN, "Swizzle<32B> o S[(128, 32) : (32, 1)]", align 1024, packing b6x16_p32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_128x256b_f6_b6x16_p32", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant 70403112304640 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {group = #nvvm.cta_group<cta_2>, shape = #nvvm.tcgen05_cp_shape<shape_128x256b>, tile.cp = "src_offset=0 col=0 sbo=128 swizzle=none lbo=2048"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "shape_128x256b_bf16_interleaved_cg2"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 1024, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x16xbf16, "S[(128, 16) : (1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 2} : (!tile.buffer<tmem, 128x16xbf16, "S[(128, 16) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "S[(16, 8, 2, 8) : (64, 8, 1024, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_128x256b_bf16_interleaved_cg2", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant 70403108110336 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {group = #nvvm.cta_group<cta_2>, shape = #nvvm.tcgen05_cp_shape<shape_4x256b>, tile.cp = "src_offset=0 col=0 sbo=128 swizzle=none lbo=1024"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {group = #nvvm.cta_group<cta_2>, shape = #nvvm.tcgen05_cp_shape<shape_4x256b>, tile.cp = "src_offset=64 col=0 lane=1 sbo=128 swizzle=none lbo=1024"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {group = #nvvm.cta_group<cta_2>, shape = #nvvm.tcgen05_cp_shape<shape_4x256b>, tile.cp = "src_offset=128 col=0 lane=2 sbo=128 swizzle=none lbo=1024"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {group = #nvvm.cta_group<cta_2>, shape = #nvvm.tcgen05_cp_shape<shape_4x256b>, tile.cp = "src_offset=192 col=0 lane=3 sbo=128 swizzle=none lbo=1024"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "shape_4x256b_f32_lane_middle_cg2"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x4x8xf32, "S[(4, 4, 2, 4) : (4, 16, 256, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 4x4x8xf32, "S[(4, 4, 8) : (32@TLane, 1@TLane, 1@TCol)]">
  "tile.copy_async"(%t, %s) {cta_group = 2} : (!tile.buffer<tmem, 4x4x8xf32, "S[(4, 4, 8) : (32@TLane, 1@TLane, 1@TCol)]">, !tile.buffer<shared, 4x4x8xf32, "S[(4, 4, 2, 4) : (4, 16, 256, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_4x256b_f32_lane_middle_cg2", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant -9223301530671644672 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {group = #nvvm.cta_group<cta_2>, multicast = #nvvm.tcgen05_cp_multicast<warpx2_01_23>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>, tile.cp = "src_offset=0 col=0 sbo=512 swizzle=64B"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {group = #nvvm.cta_group<cta_2>, multicast = #nvvm.tcgen05_cp_multicast<warpx2_01_23>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>, tile.cp = "src_offset=16 col=4 sbo=512 swizzle=64B"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {group = #nvvm.cta_group<cta_2>, multicast = #nvvm.tcgen05_cp_multicast<warpx2_01_23>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>, tile.cp = "src_offset=32 col=8 sbo=512 swizzle=64B"}
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {group = #nvvm.cta_group<cta_2>, multicast = #nvvm.tcgen05_cp_multicast<warpx2_01_23>, shape = #nvvm.tcgen05_cp_shape<shape_64x128b>, tile.cp = "src_offset=48 col=12 sbo=512 swizzle=64B"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "shape_64x128b_01_23_u8_sw64_cg2"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xui8, "Swizzle<64B> o S[(64, 64) : (64, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 2} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 64x64xui8, "S[(2, 32, 64) : (64@TLane, 1@TLane, 1@TCol)] + R[2 : 32@TLane]">
  "tile.copy_async"(%t, %s) {cta_group = 2} : (!tile.buffer<tmem, 64x64xui8, "S[(2, 32, 64) : (64@TLane, 1@TLane, 1@TCol)] + R[2 : 32@TLane]">, !tile.buffer<shared, 64x64xui8, "Swizzle<64B> o S[(64, 64) : (64, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shape_64x128b_01_23_u8_sw64_cg2", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>} : () -> ()
