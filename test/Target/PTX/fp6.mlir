// REQUIRES: ptxas
// RUN: tile-opt %root/examples/fp6_to_tmem.mlir --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// examples/fp6_to_tmem.mlir through libNVVM to PTX and ptxas: tile.copy expands each 12-byte group of
// packed 6-bit data into a 16-byte .b6x16_p32 unit (three 32-bit loads, one 16-byte store with zero
// padding), and the copy_async becomes eight decompressing cps, 4 tmem columns apart.

// CHECK-LABEL: .entry fp6_to_tmem(
// CHECK-COUNT-3: ld.global.b32
// CHECK: st.shared.v4.b32 [%r{{d?[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, 0};
// CHECK: fence.proxy.async.shared::cta;
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b6x16_p32 [%r[[T:[0-9]+]]], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b6x16_p32 [%r[[T]]+4], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b6x16_p32 [%r[[T]]+8], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b6x16_p32 [%r[[T]]+12], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b6x16_p32 [%r[[T]]+16], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b6x16_p32 [%r[[T]]+20], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b6x16_p32 [%r[[T]]+24], %rd{{[0-9]+}};
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b6x16_p32 [%r[[T]]+28], %rd{{[0-9]+}};
// CHECK-NOT: tcgen05.cp
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one
