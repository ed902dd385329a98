// RUN: tile-opt --help | FileCheck %s
//
// --help lists each pass with its options.

// CHECK: --remarks-filter REGEX
// CHECK: --mlir-pass-pipeline-crash-reproducer FILE
// CHECK: Passes (tile_mlir):
// CHECK: --tile-lower-copy-async
// CHECK-NEXT: chip=<value>
// CHECK-NEXT: all-variants=<value> {{.*}}memory pair
// CHECK: --convert-tile-to-nvvm
// CHECK-NEXT: chip=<value>
// CHECK-NEXT: features=<value>
