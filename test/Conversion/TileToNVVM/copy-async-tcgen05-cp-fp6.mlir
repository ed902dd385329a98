// RUN: tile-opt %s --split-input-file --tile-verify --tile-lower-copy-async | FileCheck %s

// 6-bit elements: the shared tile is in the .b6x16_p32 form (packing b6x16_p32: 16 elements in 12 bytes
// + 4 bytes of padding per 16-byte unit) and tensor memory gets one 8-bit container per element, so the
// plan has the geometry of 8-bit data and every cp carries srcFormat b6x16_p32
// (tcgen05.cp...32x128b.warpx4.b8x16.b6x16_p32).

// One 32x16 tile: SBO 128, no swizzle, one cp.
// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant 70403103916032 : i64
// CHECK: arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>, tile.cp = "src_offset=0 col=0 sbo=128 swizzle=none"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "fp6_32x16"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xf6E3M2FN, "S[(32, 16) : (16, 1)]", align 1024, packing b6x16_p32>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xf6E3M2FN, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {} : (!tile.buffer<tmem, 32x16xf6E3M2FN, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xf6E3M2FN, "S[(32, 16) : (16, 1)]", align 1024, packing b6x16_p32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "fp6_32x16", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// A 128-element (128-byte) swizzle row: 128B swizzle, SBO 1024, eight cps 16 bytes apart along the row,
// 4 tmem columns apart (16 containers of 8 bits).
// CHECK-LABEL: module
// CHECK: arith.constant 4611756662049472512 : i64
// CHECK: nvvm.tcgen05.cp {{.+}} srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>, tile.cp = "src_offset=0 col=0 sbo=1024 swizzle=128B"}
// CHECK: nvvm.tcgen05.cp {{.+}} srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>, tile.cp = "src_offset=16 col=4 sbo=1024 swizzle=128B"}
// CHECK: nvvm.tcgen05.cp {{.+}} srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>, tile.cp = "src_offset=32 col=8 sbo=1024 swizzle=128B"}
// CHECK: nvvm.tcgen05.cp {{.+}} srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>, tile.cp = "src_offset=48 col=12 sbo=1024 swizzle=128B"}
// CHECK: nvvm.tcgen05.cp {{.+}} srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>, tile.cp = "src_offset=64 col=16 sbo=1024 swizzle=128B"}
// CHECK: nvvm.tcgen05.cp {{.+}} srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>, tile.cp = "src_offset=80 col=20 sbo=1024 swizzle=128B"}
// CHECK: nvvm.tcgen05.cp {{.+}} srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>, tile.cp = "src_offset=96 col=24 sbo=1024 swizzle=128B"}
// CHECK: nvvm.tcgen05.cp {{.+}} srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>, tile.cp = "src_offset=112 col=28 sbo=1024 swizzle=128B"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "fp6_sw128_k_steps"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x128xf6E2M3FN, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024, packing b6x16_p32>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x128xf6E2M3FN, "S[(32, 128) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {} : (!tile.buffer<tmem, 32x128xf6E2M3FN, "S[(32, 128) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x128xf6E2M3FN, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024, packing b6x16_p32>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "fp6_sw128_k_steps", block = array<i32: 128, 1, 1>} : () -> ()
