// tile-sim checks a launch against the kernel's .reqntid as the driver does: `--block 1` used to run
// the seed's 128-thread demo with one thread; the block it was compiled for still runs.
// RUN: not tile-run %root/examples/demo.mlir --backend sim --block 1 --print none 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: tile-run %root/examples/demo.mlir --backend sim --block 128 --print none 2>&1 | FileCheck %s

// REFUSED: tile-run: error: launch of demo: block (1, 1, 1) differs from the kernel's .reqntid 128, 1, 1 (the driver refuses the launch with CUDA_ERROR_INVALID_VALUE)
// CHECK: tile-run: demo ran on sim
