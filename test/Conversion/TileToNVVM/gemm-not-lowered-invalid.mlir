// RUN: tile-opt %s --verify-diagnostics --convert-tile-to-nvvm

// convert-tile-to-nvvm does not lower gemm_async: tile-lower-gemm-async must run first (tile-to-nvvm does).

"tile.kernel"() ({
  %a = "tile.alloc_shared"() : () -> !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>
  %s = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>
  "tile.tmem.alloc"(%s) {num_cols = 128} : (!tile.buffer<shared, 1xi32>) -> ()
  %d = "tile.tmem.buffer"(%s) : (!tile.buffer<shared, 1xi32>) -> !tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">
  %t = arith.constant true
  // expected-error@+1 {{'tile.gemm_async' op lowering: not lowered; run tile-lower-gemm-async first}}
  "tile.gemm_async"(%d, %a, %a, %t) : (!tile.buffer<tmem, 128x128xf32, "S[(128, 128) : (1@TLane, 1@TCol)]">, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, !tile.buffer<shared, 128x16xbf16, "Swizzle<32B> o S[(128, 16) : (16, 1)]", align 256>, i1) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "k", block = array<i32: 128, 1, 1>} : () -> ()
