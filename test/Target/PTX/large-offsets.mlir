// A region of a global tensor past 2 GiB: its byte offsets are computed in 64 bits (address.byte_offset),
// not wrapped to 32 (before, rows 1073741820.. of a 16 GiB tensor were read at A - 64).
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK-LABEL: .entry rows_past_16GiB(
// CHECK: cvt.u64.u32 [[I:%rd[0-9]+]], %r{{[0-9]+}};
// CHECK: add.s64 [[P:%rd[0-9]+]], [[I]], %rd{{[0-9]+}};
// CHECK: add.s64 [[Q:%rd[0-9]+]], [[P]], 17179869120;
// CHECK: ld.global.v4.b32 {{.*}}, [[[Q]]];
// CHECK-NOT: +-64]
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 1073741824x16xui8>, %B: !tile.buffer<global, 4x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x16xui8>
  "tile.copy"(%s, %A) {src_offsets = array<i64: 1073741820, 0>, src_sizes = array<i64: 4, 16>} : (!tile.buffer<shared, 4x16xui8>, !tile.buffer<global, 1073741824x16xui8>) -> ()
  "tile.copy"(%B, %s) : (!tile.buffer<global, 4x16xui8>, !tile.buffer<shared, 4x16xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "rows_past_16GiB", block = array<i32: 128, 1, 1>} : () -> ()
