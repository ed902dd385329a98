// RUN: tile-opt %s --tile-verify --convert-tile-to-nvvm | FileCheck %s
//
// Every tile.kernel becomes an llvm.func kernel in one gpu.module with the sm_100a target: global
// buffers become !llvm.ptr<1> parameters, scalars stay, the block and cluster shapes become
// nvvm.reqntid / nvvm.cluster_dim, and each tile.alloc_shared an aligned addr_space 3 global.

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @tile_kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">]
// CHECK-NOT: gpu.module
// CHECK-LABEL: llvm.func @params(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: f32, %{{.*}}: !llvm.ptr<1>)
// CHECK-SAME: attributes {gpu.kernel, nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>}
// CHECK-NOT: tile.
// CHECK: llvm.return
"tile.kernel"() ({
^bb0(%a: !tile.buffer<global, 32x16xui8>, %n: i32, %m: i64, %x: f32, %o: !tile.buffer<global, 128x4xf32>):
  "tile.return"() : () -> ()
}) {sym_name = "params", block = array<i32: 128, 1, 1>} : () -> ()

// Scalar parameters keep their uses.
// CHECK-LABEL: llvm.func @scalar_use(
// CHECK-SAME: %[[N:.*]]: i32)
// CHECK: arith.addi %[[N]], %[[N]] : i32
"tile.kernel"() ({
^bb0(%n: i32):
  %d = arith.addi %n, %n : i32
  "tile.return"() : () -> ()
}) {sym_name = "scalar_use", block = array<i32: 32, 1, 1>} : () -> ()

// CHECK-LABEL: llvm.func @clustered()
// CHECK-SAME: attributes {gpu.kernel, nvvm.cluster_dim = array<i32: 2, 1, 1>, nvvm.kernel, nvvm.reqntid = array<i32: 64, 2, 1>}
"tile.kernel"() ({
  "tile.return"() : () -> ()
}) {sym_name = "clustered", block = array<i32: 64, 2, 1>, cluster = array<i32: 2, 1, 1>} : () -> ()

// Shared buffers: bytes from the layout's span, alignment from the type (at least 16).
// CHECK-DAG: llvm.mlir.global internal @shared_smem0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<4096 x i8>
// CHECK-DAG: llvm.mlir.global internal @shared_smem1() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8 x i8>
// CHECK-DAG: llvm.mlir.global internal @shared_smem2() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4 x i8>
// CHECK-DAG: llvm.mlir.global internal @shared_smem3() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8192 x i8>
// CHECK-LABEL: llvm.func @shared()
// CHECK-DAG: llvm.mlir.addressof @shared_smem0 : !llvm.ptr<3>
// CHECK-DAG: llvm.mlir.addressof @shared_smem3 : !llvm.ptr<3>
"tile.kernel"() ({
  %0 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x128xui8, "Swizzle<128B> o S[(32, 128) : (128, 1)]", align 1024>
  %1 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64, align 8>
  %2 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  %3 = "tile.alloc_shared"() : () -> !tile.buffer<shared, 64x64xbf16, align 128>
  "tile.return"() : () -> ()
}) {sym_name = "shared", block = array<i32: 128, 1, 1>} : () -> ()

// A custom chip and PTX feature set through the pass options is tested in options.mlir.
