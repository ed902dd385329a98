// RUN: tile-opt %s --tile-verify | tile-opt --tile-verify --no-type-aliases | FileCheck %s
//
// tile.reinterpret: one 512-byte scale-factor atom as TMA writes it (32 rows of 16 bytes), viewed as the
// 128x4 UE8M0 matrix it holds (examples/gemm_blockscaled.py; the atom's bytes: docs/gemm-walkthrough.md §1, its tmem placement: docs/gemm.md §5).

// CHECK: %[[RAW:.*]] = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 128>
// CHECK-NEXT: "tile.reinterpret"(%[[RAW]]) : (!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 128>) -> !tile.buffer<shared, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4, 16, 1)]", align 128>
// CHECK-LABEL: sym_name = "sf_atom_view"
"tile.kernel"() ({
  %raw = "tile.alloc_shared"() : () -> !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 128>
  %sf = "tile.reinterpret"(%raw) : (!tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 128>) -> !tile.buffer<shared, 128x4xf8E8M0FNU, "S[(4, 32, 4) : (4, 16, 1)]", align 128>
  "tile.return"() : () -> ()
}) {sym_name = "sf_atom_view", block = array<i32: 128, 1, 1>} : () -> ()
