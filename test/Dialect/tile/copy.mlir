// RUN: tile-opt %s --tile-verify | tile-opt --tile-verify --no-type-aliases | FileCheck %s
//
// tile.copy between global and shared buffers: operand order (dst, src), regions, scopes. A kernel's
// CHECK-LABEL (its sym_name) follows the checks of its body: the generic form prints the kernel's
// attributes after the body.

// CHECK: ^bb0(%[[A:.*]]: !tile.buffer<global, 32x16xui8>):
// CHECK-NEXT: %[[S:.*]] = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
// CHECK-NEXT: "tile.copy"(%[[S]], %[[A]]) {scope = "cta"} : (!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>, !tile.buffer<global, 32x16xui8>) -> ()
// CHECK-NEXT: "tile.copy"(%[[A]], %[[S]]) : (!tile.buffer<global, 32x16xui8>, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
// CHECK-LABEL: sym_name = "global_shared"
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, 32x16xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>
  "tile.copy"(%s, %A) {scope = "cta"} : (!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>, !tile.buffer<global, 32x16xui8>) -> ()
  "tile.copy"(%A, %s) : (!tile.buffer<global, 32x16xui8>, !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "global_shared", block = array<i32: 128, 1, 1>} : () -> ()

// Regions on both sides, a swizzled destination, and each per-thread scope.
// CHECK: "tile.copy"(%{{.*}}, %{{.*}}) {dst_offsets = array<i64: 8, 0>, dst_sizes = array<i64: 16, 128>, scope = "warp", src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 16, 128>} : (!tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>, !tile.buffer<global, 16x128xui8>) -> ()
// CHECK-NEXT: "tile.copy"({{.*}}) {dst_offsets = array<i64: 0, 0>, dst_sizes = array<i64: 16, 128>, scope = "warpgroup"}
// CHECK-NEXT: "tile.copy"({{.*}}) {dst_offsets = array<i64: 16, 0>, dst_sizes = array<i64: 16, 128>, scope = "thread"}
// CHECK-LABEL: sym_name = "regions_and_scopes"
"tile.kernel"() ({
^bb0(%g: !tile.buffer<global, 16x128xui8>):
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>
  "tile.copy"(%s, %g) {dst_offsets = array<i64: 8, 0>, dst_sizes = array<i64: 16, 128>, src_offsets = array<i64: 0, 0>, src_sizes = array<i64: 16, 128>, scope = "warp"} : (!tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>, !tile.buffer<global, 16x128xui8>) -> ()
  "tile.copy"(%s, %g) {dst_offsets = array<i64: 0, 0>, dst_sizes = array<i64: 16, 128>, scope = "warpgroup"} : (!tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>, !tile.buffer<global, 16x128xui8>) -> ()
  "tile.copy"(%s, %g) {dst_offsets = array<i64: 16, 0>, dst_sizes = array<i64: 16, 128>, scope = "thread"} : (!tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>, !tile.buffer<global, 16x128xui8>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "regions_and_scopes", block = array<i32: 128, 1, 1>} : () -> ()

// Shared to shared, between element types of the same width (f16 -> bf16 bit copy).
// CHECK: "tile.copy"(%{{.*}}, %{{.*}}) : (!tile.buffer<shared, 64xbf16>, !tile.buffer<shared, 64xf16>) -> ()
// CHECK-LABEL: sym_name = "shared_shared"
"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64xf16>
  %b = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64xbf16>
  "tile.copy"(%b, %a) : (!tile.buffer<shared, 64xbf16>, !tile.buffer<shared, 64xf16>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "shared_shared", block = array<i32: 64, 1, 1>} : () -> ()
