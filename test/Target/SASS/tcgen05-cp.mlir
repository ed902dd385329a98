// REQUIRES: nvdisasm
// RUN: tile-run %root/examples/demo.mlir --arch sm_100a --no-run --dump-sass | FileCheck %s
//
// The demo's cubin (embedded ptxas, sm_100a) disassembled: tcgen05.cp.32x128b.warpx4 is one UTCCP of
// 4 x 32 datapaths x 128 bits from a shared-memory descriptor, tcgen05.commit a UTCBAR on the mbarrier,
// tcgen05.ld.32x32b.x4 an LDTM.x4, and tcgen05.alloc / dealloc use the allocator's atomics.

// CHECK: UTCATOMSWS.FIND_AND_SET.ALIGN
// CHECK: UTCCP.T.S.4x32dp128bit tmem[{{UR[0-9]+}}], gdesc[{{UR[0-9]+}}]
// CHECK-NEXT: UTCBAR [{{UR[0-9]+}}], URZ
// CHECK: LDTM.x4 {{R[0-9]+}}, tmem[{{UR[0-9]+}}]
// CHECK: UTCATOMSWS.AND
