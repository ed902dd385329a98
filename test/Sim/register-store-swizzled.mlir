// tile.copy from registers into a 128B-swizzled shared buffer (lowering/registers.py: each lane holds a row,
// so the swizzle's row bits are the thread's and it XORs its 16-byte chunks' offsets with one value), then
// shared -> global through the swizzled layout, on tile-sim: out must equal in. The PTX stores each row as
// eight 16-byte vectors (LLVM 23 writes v4.b32, LLVM 22 v2.b64), the four warps' 32 rows at once.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tile-opt %s --tile-to-ptx | FileCheck %s --check-prefix=PTX
// RUN: %PYTHON -c "import numpy as np; np.save('%t/a.npy', (np.arange(4096, dtype=np.uint32) * 2654435761 %% 4294967291).astype(np.uint32).reshape(128, 32))"
// RUN: tile-run %s %t/a.npy --zeros out --backend sim --arch sm_90a --output-dir %t --print summary 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: %PYTHON -c "import numpy as np; a = np.load('%t/a.npy'); o = np.load('%t/out.npy'); print('rows', o.shape[0], 'match' if (o == a).all() else 'MISMATCH')" | FileCheck %s

// PTX-COUNT-8: st.shared.{{v4.b32|v2.b64}}
// PTX-NOT: st.shared
// TOOL: swizzled_store ran on sim
// CHECK: rows 128 match

!g = !tile.buffer<global, 128x32xui32>
!s = !tile.buffer<shared, 128x32xui32, "Swizzle<128B> o S[(128, 32) : (32, 1)]", align 1024>
!r = !tile.buffer<reg, 128x32xui32, "S[(4, 32, 32) : (1@warpid, 1@laneid, 1@reg)]">

"tile.kernel"() ({
^bb0(%in: !g, %out: !g):
  %smem = "tile.alloc_shared"() : () -> !s
  %regs = "tile.alloc_reg"() : () -> !r
  "tile.copy"(%regs, %in) {scope = "cta"} : (!r, !g) -> ()
  "tile.copy"(%smem, %regs) {scope = "cta"} : (!s, !r) -> ()
  "tile.barrier"() : () -> ()
  "tile.copy"(%out, %smem) {scope = "cta"} : (!g, !s) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "swizzled_store", block = array<i32: 128, 1, 1>} : () -> ()
