// RUN: tile-opt %s --tile-verify | FileCheck %s
//
// Runtime extents (`?`, dialect/types.py): a kernel parameter whose extents are its array's at launch,
// declared to TMA by tile.tensor_map and windowed for tile.copy_async; they print back as `?`.

// (the window's row stride is the largest extent's: it is never addressed, only TMA moves it)
// CHECK-DAG: !global_dxdxbf16 = !tile.buffer<global, ?x?xbf16>
// CHECK-DAG: !global_64xdxf8E4M3FN = !tile.buffer<global, 64x?xf8E4M3FN>
// CHECK: ^bb0(%{{.*}}: !global_dxdxbf16, %{{.*}}: !global_64xdxf8E4M3FN, %{{.*}}: i32):
// CHECK: "tile.tensor_map"(%{{.*}}) {box = array<i64: 64, 64>} : (!global_dxdxbf16) -> !tile.tensormap
// CHECK: "tile.subview"(%{{.*}}, %{{.*}}) {{.*}} : (!global_dxdxbf16, i32) -> !global_64x64xbf16
"tile.kernel"() ({
^bb0(%A: !tile.buffer<global, ?x?xbf16>, %B: !tile.buffer<global, 64x?xf8E4M3FN>, %m: i32):
  %map = "tile.tensor_map"(%A) {box = array<i64: 64, 64>} : (!tile.buffer<global, ?x?xbf16>) -> !tile.tensormap
  %mb = "tile.tensor_map"(%B) {box = array<i64: 64, 64>} : (!tile.buffer<global, 64x?xf8E4M3FN>) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xbf16>
  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>
  %w = "tile.subview"(%A, %m) {static_offsets = array<i64: -1, 0>, sizes = array<i64: 64, 64>} : (!tile.buffer<global, ?x?xbf16>, i32) -> !tile.buffer<global, 64x64xbf16, "S[(64, 64) : (2147483647, 1)]">
  "tile.copy_async"(%s, %w, %bar) : (!tile.buffer<shared, 64x64xbf16>, !tile.buffer<global, 64x64xbf16, "S[(64, 64) : (2147483647, 1)]">, !tile.buffer<shared, 1xi64>) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "runtime_extents", block = array<i32: 128, 1, 1>} : () -> ()
