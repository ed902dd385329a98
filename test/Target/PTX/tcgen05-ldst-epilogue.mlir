// REQUIRES: ptxas
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin
//
// The epilogue of a 128x64 f32 accumulator in tensor memory, as three tile ops: tcgen05.ld into
// registers (one row per thread), cvt to bf16 (round to nearest even), vectorised st.global; and the
// same accumulator to e4m3 (rn.satfinite) in shared memory, which the CTA then copies out. The register tiles become registers (no
// local memory), and the wait::ld comes after the load, before the first conversion.

// CHECK-LABEL: .entry epilogue(
// CHECK-NOT: .local
// CHECK: tcgen05.ld.sync.aligned.32x32b.x64.b32 {%r{{[0-9]+}}, {{.*}}}, [%r{{[0-9]+}}];
// CHECK-NOT: cvt.rn
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK-COUNT-32: cvt.rn.bf16x2.f32
// CHECK-COUNT-8: st.global.v4.b32
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK: st.shared.v4.b32
// CHECK-NOT: ld.local
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32

"tile.kernel"() ({
^bb0(%C: !tile.buffer<global, 128x64xbf16>, %C8: !tile.buffer<global, 128x64xf8E4M3FN>):
  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %c8 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x64xf8E4M3FN, "S[(128, 64) : (64, 1)]">
  %warp = "tile.warp_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %w0 = arith.cmpi eq, %warp, %c0 : i32
  scf.if %w0 {
    "tile.tmem.alloc"(%slot) {num_cols = 64} : (!tile.buffer<shared, 1xi32>) -> ()
  }
  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()
  "tile.barrier"() : () -> ()
  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()
  %acc_t = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x64xf32, "S[(128, 64) : (1@TLane, 1@TCol)]">
  %acc = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x64xf32, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">
  %o = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x64xbf16, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">
  %o8 = "tile.alloc_reg"() : () -> !tile.buffer<reg, 128x64xf8E4M3FN, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">
  "tile.copy_async"(%acc, %acc_t) {scope = "warpgroup"} : (!tile.buffer<reg, 128x64xf32, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<tmem, 128x64xf32, "S[(128, 64) : (1@TLane, 1@TCol)]">) -> ()
  "tile.convert"(%o, %acc) {rounding = "rn"} : (!tile.buffer<reg, 128x64xbf16, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x64xf32, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.copy"(%C, %o) {scope = "warpgroup"} : (!tile.buffer<global, 128x64xbf16>, !tile.buffer<reg, 128x64xbf16, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.convert"(%o8, %acc) {rounding = "rn_satfinite"} : (!tile.buffer<reg, 128x64xf8E4M3FN, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">, !tile.buffer<reg, 128x64xf32, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.copy"(%c8, %o8) {scope = "warpgroup"} : (!tile.buffer<shared, 128x64xf8E4M3FN, "S[(128, 64) : (64, 1)]">, !tile.buffer<reg, 128x64xf8E4M3FN, "S[(4, 32, 64) : (1@warpid, 1@laneid, 1@reg)]">) -> ()
  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()
  "tile.barrier"() : () -> ()
  "tile.copy"(%C8, %c8) {scope = "cta"} : (!tile.buffer<global, 128x64xf8E4M3FN>, !tile.buffer<shared, 128x64xf8E4M3FN, "S[(128, 64) : (64, 1)]">) -> ()
  scf.if %w0 {
    "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()
    "tile.tmem.relinquish"() : () -> ()
    "tile.tmem.dealloc"(%slot) {num_cols = 64} : (!tile.buffer<shared, 1xi32>) -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "epilogue", block = array<i32: 128, 1, 1>} : () -> ()
