// RUN: tile-opt %s --tile-verify | tile-opt --tile-verify --no-type-aliases | FileCheck %s
//
// tile.kernel round trip. The generic form prints a kernel's attributes after its body, so each
// kernel's CHECK-LABEL (its sym_name) closes the checks of that kernel's body above it.

// CHECK: "tile.kernel"() ({
// CHECK-NEXT: ^bb0(%{{.*}}: !tile.buffer<global, 32x16xui8>, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: f32, %{{.*}}: !tile.buffer<global, 128x4xf32>):
// CHECK-NEXT: "tile.return"() : () -> ()
// CHECK-NEXT: }) {block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 4, 2, 1>,
// CHECK-LABEL: sym_name = "params"} : () -> ()
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 32x16xui8>, %n: i32, %m: i64, %x: f32, %o: !tile.buffer<global, 128x4xf32>):
  "tile.return"() : () -> ()
}) {sym_name = "params", block = array<i32: 128, 1, 1>, cluster = array<i32: 2, 1, 1>, grid = array<i32: 4, 2, 1>} : () -> ()

// CHECK: "tile.kernel"() ({
// CHECK-NEXT: "tile.return"() : () -> ()
// CHECK-NEXT: }) {block = array<i32: 32, 4, 2>,
// CHECK-LABEL: sym_name = "no_params"} : () -> ()
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "no_params", block = array<i32: 32, 4, 2>} : () -> ()

// Upstream ops mix freely with tile ops in a kernel body.
// CHECK: %[[TID:.*]] = "tile.thread_id"() : () -> i32
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[TID]], %[[C0]] : i32
// CHECK: scf.if %[[EQ]] {
// CHECK-NEXT: "tile.barrier"() : () -> ()
// CHECK-NEXT: }
// CHECK: "tile.return"() : () -> ()
// CHECK: block = array<i32: 1024, 1, 1>,
// CHECK-LABEL: sym_name = "upstream_ops"
"tile.kernel"() ({
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %eq = arith.cmpi eq, %tid, %c0 : i32
  scf.if %eq {
    "tile.barrier"() : () -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "upstream_ops", block = array<i32: 1024, 1, 1>} : () -> ()

// The largest cluster (16 CTAs) with a 2-D block.
// CHECK: block = array<i32: 16, 8, 1>, cluster = array<i32: 4, 4, 1>,
// CHECK-LABEL: sym_name = "cluster16"
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "cluster16", block = array<i32: 16, 8, 1>, cluster = array<i32: 4, 4, 1>} : () -> ()

// The parameters' names (one identifier per block argument) survive the round trip.
// CHECK: "tile.kernel"() ({
// CHECK-NEXT: ^bb0(%{{.*}}: !tile.buffer<global, 4xf32>, %{{.*}}: i32):
// CHECK: }) {arg_names = ["src", "n"], block = array<i32: 32, 1, 1>,
// CHECK-LABEL: sym_name = "named"} : () -> ()
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 4xf32>, %n: i32):
  "tile.return"() : () -> ()
}) {sym_name = "named", block = array<i32: 32, 1, 1>, arg_names = ["src", "n"]} : () -> ()
