// The seed's demonstration program (examples/demo.mlir) through tile-run on the emulator: compile for
// sm_100a, execute the PTX on tile-sim, and check that all 128 readback lanes hold the 32x16 input tile
// (warpx4 multicast: row r in lanes r, r+32, r+64, r+96).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON -c "import numpy as np; np.save('%t/a.npy', ((np.arange(512) * 7 + 3) %% 256).astype(np.uint8).reshape(32, 16))"
// RUN: tile-run %root/examples/demo.mlir %t/a.npy --zeros out --backend sim --output-dir %t --print summary 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: %PYTHON -c "import numpy as np; a = np.load('%t/a.npy'); o = np.load('%t/out.npy'); print('lanes', o.shape[0], 'match' if (o == np.tile(a, (4, 1))).all() else 'MISMATCH')" | FileCheck %s

// TOOL: demo ran on sim
// TOOL: out: shape=(128, 16) dtype=uint8
// CHECK: lanes 128 match
