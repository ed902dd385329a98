// RUN: tile-opt %s --split-input-file --tile-verify --tile-lower-copy-async | FileCheck %s

// The seed's single-cp cases (apache/tvm test_smem_tmem.py at bb6f8aec55, validated there on B200),
// lowered to one tcgen05.cp.32x128b.warpx4 each. Checked: the descriptor template (SBO >> 4 at bit 32,
// fixed bit 46, swizzle code at bit 61, printed as a signed i64), the buffer address OR-ed into the start
// field, the cp's source offset (added to the start field) and tmem column, and that there is one cp.
//   template = 0x0000_4008_0000_0000 (SBO 128, none)   0xC000_4010_0000_0000 (SBO 256, 32B)
//              0x8000_4020_0000_0000 (SBO 512, 64B)    0x4000_4040_0000_0000 (SBO 1024, 128B)

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant 70403103916032 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, tile.cp = "src_offset=0 col=0 sbo=128 swizzle=none"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "sw0_plain_atom_aligned"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw0_plain_atom_aligned", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant -4611615580963733504 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, tile.cp = "src_offset=0 col=0 sbo=256 swizzle=32B"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "sw1_32B_atom"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xui8, "Swizzle<32B> o S[(32, 32) : (32, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x32xui8, "Swizzle<32B> o S[(32, 32) : (32, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw1_32B_atom", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant -9223301530671644672 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, tile.cp = "src_offset=0 col=0 sbo=512 swizzle=64B"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "sw2_64B_atom"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xui8, "Swizzle<64B> o S[(32, 64) : (64, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x64xui8, "Swizzle<64B> o S[(32, 64) : (64, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw2_64B_atom", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant 4611756662049472512 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, tile.cp = "src_offset=0 col=0 sbo=1024 swizzle=128B"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "sw3_128B_atom"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw3_128B_atom", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant 4611756662049472512 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, tile.cp = "src_offset=0 col=0 sbo=1024 swizzle=128B"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "sw3_64x128_corner"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x128xui8, "Swizzle<128B> o S[(64, 128) : (128, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 64x128xui8, "Swizzle<128B> o S[(64, 128) : (128, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw3_64x128_corner", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant 4611756662049472512 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, tile.cp = "src_offset=1024 col=0 sbo=1024 swizzle=128B"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "sw3_64x128_atom_row_8"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x128xui8, "Swizzle<128B> o S[(64, 128) : (128, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 8, 0>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 64x128xui8, "Swizzle<128B> o S[(64, 128) : (128, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw3_64x128_atom_row_8", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant -9223301530671644672 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, tile.cp = "src_offset=2048 col=0 sbo=512 swizzle=64B"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "sw2_32x256_col_64"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x256xui8, "Swizzle<64B> o S[(32, 4, 64) : (64, 2048, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 0, 64>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 32x256xui8, "Swizzle<64B> o S[(32, 4, 64) : (64, 2048, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw2_32x256_col_64", block = array<i32: 128, 1, 1>} : () -> ()

// -----

// CHECK-LABEL: module
// CHECK: %[[TMPL:.+]] = arith.constant 70403103916032 : i64
// CHECK: %[[DESC:.+]] = arith.ori %[[TMPL]], %{{.+}} : i64
// CHECK: nvvm.tcgen05.cp %{{.+}}, %{{.+}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, tile.cp = "src_offset=64 col=0 sbo=128 swizzle=none"}
// CHECK-NOT: nvvm.tcgen05.cp
// CHECK: sym_name = "sw0_M_atom_major_4_0"
"tile.kernel"() ({
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x32xui8, "S[(8, 8, 2, 16) : (128, 16, 1024, 1)]", align 1024>
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%slot) {num_cols = 32, cta_group = 1} : (!tile.buffer<shared, 1xi32>) -> ()
  %t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">
  "tile.copy_async"(%t, %s) {src_offsets = array<i64: 4, 0>, src_sizes = array<i64: 32, 16>, cta_group = 1} : (!tile.buffer<tmem, 32x16xui8, "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]">, !tile.buffer<shared, 64x32xui8, "S[(8, 8, 2, 16) : (128, 16, 1024, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "sw0_M_atom_major_4_0", block = array<i32: 128, 1, 1>} : () -> ()
