// A region of a global tensor past 2 GiB: its byte offsets are computed in 64 bits (address.byte_offset,
// registers.emit_move), not wrapped to 32 (before, rows 1073741820.. of a 16 GiB tensor were read at
// A - 64; a register tile's rows of a 64 GiB tensor could not be lowered; a whole 64 GiB copy's i32
// element index wrapped, its offsets masked to 32 bits).
// RUN: tile-opt %s --tile-to-ptx > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK-LABEL: .entry rows_past_16GiB(
// (the index widened to 64 bits before any offset: cvt after a 32-bit shift, or mul.wide)
// CHECK: {{cvt.u64.u32|mul.wide.u32}} %rd{{[0-9]+}}, %r{{[0-9]+}}{{(, 16)?}};
// CHECK: add.s64 [[Q:%rd[0-9]+]], %rd{{[0-9]+}}, 17179869120;
// CHECK: ld.global.{{v4.b32|v2.b64}} {{.*}}, [[[Q]]];
// CHECK-NOT: +-64]
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 1073741824x16xui8>, %B: !tile.buffer<global, 4x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x16xui8>
  "tile.copy"(%s, %A) {src_offsets = array<i64: 1073741820, 0>, src_sizes = array<i64: 4, 16>} : (!tile.buffer<shared, 4x16xui8>, !tile.buffer<global, 1073741824x16xui8>) -> ()
  "tile.copy"(%B, %s) : (!tile.buffer<global, 4x16xui8>, !tile.buffer<shared, 4x16xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "rows_past_16GiB", block = array<i32: 128, 1, 1>} : () -> ()

// a register tile loaded from rows 1073741792.. of a 64 GiB f32 tensor (64-byte rows)
// CHECK-LABEL: .entry reg_rows_past_64GiB(
// CHECK: add.s64 [[S:%rd[0-9]+]], %rd{{[0-9]+}}, 68719474688;
// CHECK: ld.global.{{v4.b32|v2.b64}} {{.*}}, [[[S]]];
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 1073741824x16xf32>):
  %r = "tile.alloc_reg"() : () -> !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">
  "tile.copy"(%r, %g) {scope = "warp", src_offsets = array<i64: 1073741792, 0>, src_sizes = array<i64: 32, 4>} : (!tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">, !tile.buffer<global, 1073741824x16xf32>) -> ()
  "tile.copy"(%g, %r) {scope = "warp", dst_offsets = array<i64: 0, 0>, dst_sizes = array<i64: 32, 4>} : (!tile.buffer<global, 1073741824x16xf32>, !tile.buffer<reg, 32x4xf32, "S[(32, 4) : (1@laneid, 1@reg)]">) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "reg_rows_past_64GiB", block = array<i32: 32, 1, 1>} : () -> ()

// a copy of all 2^36 bytes of a tensor: 64-bit element indices, no offset masked to 32 bits
// CHECK-LABEL: .entry copy_64GiB(
// CHECK-NOT: 4294967280
// CHECK: ld.global.{{v4.b32|v2.b64}}
// CHECK-NOT: 4294967280
// CHECK: ret;
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 4294967296x16xui8>, %B: !tile.buffer<global, 4294967296x16xui8>):
  "tile.copy"(%B, %A) : (!tile.buffer<global, 4294967296x16xui8>, !tile.buffer<global, 4294967296x16xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "copy_64GiB", block = array<i32: 128, 1, 1>} : () -> ()
