// RUN: tile-opt %s --tile-verify | tile-opt --tile-verify --no-type-aliases | FileCheck %s
//
// !tile.buffer types and tile.alloc_shared: scopes, shapes, element types, layout strings (printed
// exactly as written) and alignment. A kernel's CHECK-LABEL (its sym_name) follows the checks of its
// body, because the generic form prints the kernel's attributes after the body.

// CHECK: = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8>
// CHECK: = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
// CHECK: = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64, align 8>
// CHECK: = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xbf16, align 128>
// CHECK: = "tile.alloc_shared"() : () -> !tile.buffer<shared, 2x3x4xf32>
// CHECK: = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128xf8E4M3FN>
// CHECK: = "tile.alloc_shared"() : () -> !tile.buffer<shared, 256xf4E2M1FN>
// CHECK-LABEL: sym_name = "plain"
"tile.kernel"() ({
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8>
  %1 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %2 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64, align 8>
  %3 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xbf16, align 128>
  %4 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 2x3x4xf32>
  %5 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128xf8E4M3FN>
  %6 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 256xf4E2M1FN>
  "tile.return"() : () -> ()
}) {sym_name = "plain", block = array<i32: 128, 1, 1>} : () -> ()

// Layout strings: strided, multi-mode, and swizzled (each swizzle with the alignment of its repeat).
// CHECK: !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
// CHECK: !tile.buffer<shared, 8x8x2x16xui8, "S[(8, 8, 2, 16) : (128, 16, 1024, 1)]">
// CHECK: !tile.buffer<shared, 32x32xui8, "Swizzle<32B> o S[(32, 32) : (32, 1)]", align 256>
// CHECK: !tile.buffer<shared, 32x64xui8, "Swizzle<64B> o S[(32, 64) : (64, 1)]", align 512>
// CHECK: !tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>
// CHECK: !tile.buffer<shared, 4x32x16xui8, "S[(4, 32, 16) : (512, 16, 1)]">
// CHECK-LABEL: sym_name = "layouts"
"tile.kernel"() ({
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  %1 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 8x8x2x16xui8, "S[(8, 8, 2, 16) : (128, 16, 1024, 1)]">
  %2 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xui8, "Swizzle<32B> o S[(32, 32) : (32, 1)]", align 256>
  %3 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x64xui8, "Swizzle<64B> o S[(32, 64) : (64, 1)]", align 512>
  %4 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>
  %5 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 4x32x16xui8, "S[(4, 32, 16) : (512, 16, 1)]">
  "tile.return"() : () -> ()
}) {sym_name = "layouts", block = array<i32: 128, 1, 1>} : () -> ()

// Global kernel parameters with and without a layout.
// CHECK: ^bb0(%{{.*}}: !tile.buffer<global, 64x32xf16>, %{{.*}}: !tile.buffer<global, 16x32xui8, "S[(16, 32) : (1, 16)]">):
// CHECK-LABEL: sym_name = "global_params"
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 64x32xf16>, %b: !tile.buffer<global, 16x32xui8, "S[(16, 32) : (1, 16)]">):
  "tile.return"() : () -> ()
}) {sym_name = "global_params", block = array<i32: 128, 1, 1>} : () -> ()

// Sub-byte element types: packed contiguously, or (6-bit, shared) in the .b6x16_p32 form.
// CHECK: ^bb0(%{{.*}}: !tile.buffer<global, 32x128xf6E3M2FN>):
// CHECK: !tile.buffer<shared, 32x128xf6E3M2FN, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024, packing b6x16_p32>
// CHECK: !tile.buffer<shared, 32x16xf6E2M3FN, packing b6x16_p32>
// CHECK: !tile.buffer<shared, 32x32xi6>
// CHECK: !tile.buffer<shared, 64x32xf4E2M1FN>
// CHECK-LABEL: sym_name = "sub_byte"
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 32x128xf6E3M2FN>):
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x128xf6E3M2FN, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024, packing b6x16_p32>
  %1 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xf6E2M3FN, packing b6x16_p32>
  %2 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x32xi6>
  %3 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x32xf4E2M1FN>
  "tile.return"() : () -> ()
}) {sym_name = "sub_byte", block = array<i32: 128, 1, 1>} : () -> ()
